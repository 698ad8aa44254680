// pmukit -- machine-spec sections for Arm servers and PCIe-vendor PMUs: /proc/iomem, ACPI
// processors and devices as Linux shows them in sysfs, PCIe root ports (with the Tegra410
// RC-mapping DVSEC and endpoints below), the APMT and the CoreSight pages it points at, and the
// perf PMUs a loaded driver registers. Everything is written where Linux puts it, so discovery
// reads a synthetic machine exactly as it reads a real one (docs/snapshot-format.md).
#include <algorithm>

#include <fmt/format.h>

#include "pmukit/regs/coresight.h"
#include "pmukit/util/error.h"
#include "spec_context.h"

namespace pmukit::snapshot::spec {

namespace fs = std::filesystem;
namespace cs = regs::coresight;

namespace {

void rewrite_iomem(Context& ctx) {
  // The kernel prints its resource tree in address order; a claim nests under its parent.
  std::stable_sort(ctx.iomem.begin(), ctx.iomem.end(), [](const Context::IomemEntry& a, const Context::IomemEntry& b) {
    return std::pair(a.start, a.depth) < std::pair(b.start, b.depth);
  });
  std::string text;
  for (const auto& e : ctx.iomem) {
    std::uint64_t s = ctx.iomem_hidden ? 0 : e.start, t = ctx.iomem_hidden ? 0 : e.end;
    text += fmt::format("{:{}}{:08x}-{:08x} : {}\n", "", e.depth * 2, s, t, e.name);
  }
  ctx.builder.write_text("/proc/iomem", text);
}

}  // namespace

void add_iomem(Context& ctx, std::uint64_t start, std::uint64_t size, const std::string& name, unsigned depth) {
  ctx.iomem.push_back({start, start + size - 1, name, depth});
  rewrite_iomem(ctx);
}

// A relative symlink, as sysfs makes them, so the tree stays valid wherever it is moved.
void link(Context& ctx, std::string_view link_abs, std::string_view target_abs) {
  fs::path l = ctx.builder.path(link_abs), t = ctx.builder.path(target_abs);
  fs::create_directories(l.parent_path());
  std::error_code ec;
  fs::remove(l, ec);
  fs::create_symlink(t.lexically_relative(l.parent_path()), l);
}

// An ACPI device directory under `parent_abs` with hid/uid/path/status and its bus link.
std::string add_acpi_device(Context& ctx, const std::string& parent_abs, const std::string& hid,
                            const std::optional<std::string>& uid, const std::string& path, std::uint32_t status) {
  int n = ctx.acpi_instances[hid]++;
  std::string name = fmt::format("{}:{:02x}", hid, n);
  std::string dir = parent_abs + "/" + name;
  ctx.builder.write_text(dir + "/hid", hid + "\n");
  if (uid) ctx.builder.write_text(dir + "/uid", *uid + "\n");
  if (!path.empty()) ctx.builder.write_text(dir + "/path", path + "\n");
  ctx.builder.write_text(dir + "/status", fmt::format("{}\n", status));
  link(ctx, "/sys/bus/acpi/devices/" + name, dir);
  return dir;
}

void ensure_acpi_root(Context& ctx) {
  ctx.builder.write_text("/sys/devices/LNXSYSTM:00/hid", "LNXSYSTM\n");
  ctx.builder.write_text(std::string(kAcpiRoot) + "/hid", "LNXSYBUS\n");
}

// A perf PMU registered by a driver under `parent_abs` (pmu.parent), with its sysfs files.
void add_kernel_pmu(Context& ctx, const std::string& parent_abs, const std::string& name, int type, const json& files) {
  std::string dir = parent_abs + "/" + name;
  ctx.builder.write_text(dir + "/type", fmt::format("{}\n", type));
  for (const auto& [file, text] : files.items())
    ctx.builder.write_text(dir + "/" + file, text.get<std::string>() + "\n");
  link(ctx, "/sys/bus/event_source/devices/" + name, dir);
}

int next_pmu_type(Context& ctx) {
  return 100 + ctx.acpi_instances["#pmu"]++;
}

namespace {

std::string expand_i(std::string s, std::uint64_t i) {
  for (auto at = s.find("{i}"); at != std::string::npos; at = s.find("{i}")) s.replace(at, 3, std::to_string(i));
  return s;
}

std::uint8_t apmt_type(const json& j, const std::string& where) {
  static const std::map<std::string, std::uint8_t> kTypes = {
      {"mc", 0}, {"smmu", 1}, {"pcie", 2}, {"acpi", 3}, {"cache", 4}};
  if (j.is_string()) {
    auto it = kTypes.find(j.get<std::string>());
    if (it == kTypes.end()) throw Error(fmt::format("{}: unknown APMT node type '{}'", where, j.get<std::string>()));
    return it->second;
  }
  return static_cast<std::uint8_t>(num(j, where));
}

void put(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void put_text(std::vector<std::uint8_t>& b, std::size_t at, const std::string& s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) b[at + i] = i < s.size() ? static_cast<std::uint8_t>(s[i]) : ' ';
}

// The block's ID registers (CoreSight PMU architecture, page 0), and both pages made to exist
// (base1 0: a single page).
void write_id_registers(Context& ctx, const json& r, std::uint64_t base0, std::uint64_t base1,
                        const std::string& where) {
  ctx.builder.write_phys32(base0 + cs::PMCFGR, static_cast<std::uint32_t>(num_or(r, "pmcfgr", 0, where)));
  ctx.builder.write_phys32(base0 + cs::PMCR, static_cast<std::uint32_t>(num_or(r, "pmcr", 0, where)));
  ctx.builder.write_phys32(base0 + cs::PMIIDR, static_cast<std::uint32_t>(num_or(r, "pmiidr", 0, where)));
  if (r.contains("pmpidr")) {
    const json& p = r["pmpidr"];
    for (unsigned k = 0; k < 4; ++k)
      ctx.builder.write_phys32(base0 + cs::PMPIDR0 + 4 * k, static_cast<std::uint32_t>(num(p.at(k), where)));
    ctx.builder.write_phys32(base0 + cs::PMPIDR4, static_cast<std::uint32_t>(num(p.at(4), where)));
  }
  ctx.builder.write_phys32(base0 + cs::kPageBytes - 4, 0);  // the whole page exists
  if (base1) ctx.builder.write_phys32(base1 + cs::kPageBytes - 4, 0);
}

// One APMT node (+ its CoreSight registers, iomem ranges, ACPI device, kernel PMU); `i` is the
// repeat index that {i} and the *_step fields advance by.
void add_apmt_node(Context& ctx, const json& n, std::uint64_t i, std::vector<std::uint8_t>& table,
                   const std::string& where) {
  std::uint64_t id = num(n.at("id"), where) + i * num_or(n, "id_step", 1, where);
  std::uint8_t type = apmt_type(n.at("type"), where);
  std::uint8_t flags = static_cast<std::uint8_t>(num_or(n, "flags", 0, where));
  if (n.value("dual_page", false)) flags |= 1;
  if (n.value("container", false)) flags |= 2;
  if (n.value("atomic", false)) flags |= 4;
  std::uint64_t base0 = num(n.at("base0"), where) + i * num_or(n, "base_step", 0, where);
  std::uint64_t base1 = n.contains("base1") ? num(n["base1"], where) + i * num_or(n, "base_step", 0, where) : base0;
  std::uint64_t primary = num_or(n, "inst_primary", 0, where);
  std::uint64_t secondary = num_or(n, "inst_secondary", 0, where) + i * num_or(n, "uid_step", 0, where);
  std::string hid = n.value("hid", "");
  if (!hid.empty()) {
    if (hid.size() > 8) throw Error(where + ": hid longer than 8 characters");
    primary = 0;
    for (std::size_t k = 0; k < hid.size(); ++k)
      primary |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(hid[k])) << (8 * k);
  }
  std::uint64_t affinity = num_or(n, "proc_affinity", 0, where) + i * num_or(n, "proc_affinity_step", 0, where);
  std::size_t at = table.size();
  table.resize(at + 56, 0);
  put(table, at + 0, num_or(n, "length", 56, where), 2);
  put(table, at + 2, flags, 1);
  put(table, at + 3, type, 1);
  put(table, at + 4, id, 4);
  put(table, at + 8, primary, 8);
  put(table, at + 16, secondary, 4);
  put(table, at + 20, base0, 8);
  put(table, at + 28, base1, 8);
  put(table, at + 36, num_or(n, "irq", 0, where), 4);
  put(table, at + 44, num_or(n, "irq_flags", 0, where), 4);
  put(table, at + 48, affinity, 4);
  put(table, at + 52, num_or(n, "impl_id", 0, where), 4);
  if (n.contains("registers")) write_id_registers(ctx, n["registers"], base0, (flags & 1) ? base1 : 0, where);
  // Linux's APMT code makes platform device arm-cs-arch-pmu.<id> with one resource per page.
  std::string pdev = fmt::format("arm-cs-arch-pmu.{}", id);
  add_iomem(ctx, base0, cs::kPageBytes, pdev);
  if (flags & 1) add_iomem(ctx, base1, cs::kPageBytes, pdev);
  if (!hid.empty() && n.value("acpi_device", false)) {
    ensure_acpi_root(ctx);
    add_acpi_device(ctx, std::string(kAcpiRoot), hid, std::to_string(secondary), expand_i(n.value("acpi_path", ""), i),
                    15);
  }
  if (n.contains("kernel_pmu"))
    add_kernel_pmu(ctx, "/sys/devices/platform/" + pdev, expand_i(n["kernel_pmu"].get<std::string>(), i),
                   next_pmu_type(ctx), json{{"cpumask", n.value("cpumask", "0")}});
}

}  // namespace

void write_iomem_section(const json& section, Context& ctx) {
  ctx.iomem_hidden = section.value("hide_addresses", false);
  for (const auto& r : section.value("ranges", json::array()))
    ctx.iomem.push_back({num(r.at("start"), "iomem start"), num(r.at("end"), "iomem end"),
                         r.at("name").get<std::string>(), static_cast<unsigned>(num_or(r, "depth", 0, "iomem"))});
  rewrite_iomem(ctx);
}

void write_acpi_processors(const json& section, Context& ctx) {
  ensure_acpi_root(ctx);
  std::uint64_t uid_base = num_or(section, "uid_base", 0, "acpi_processors");
  bool containers = section.value("containers", true);
  std::map<int, std::string> container_dir;
  for (const auto& [cpu, socket] : ctx.cpu_package) {
    std::string parent(kAcpiRoot);
    if (containers) {
      auto it = container_dir.find(socket);
      if (it == container_dir.end())
        it = container_dir
                 .emplace(socket, add_acpi_device(ctx, parent, "ACPI0010", std::to_string(socket),
                                                  fmt::format("\\_SB_.SCK{}", socket), 15))
                 .first;
      parent = it->second;
    }
    std::string dir =
        add_acpi_device(ctx, parent, "ACPI0007", std::to_string(uid_base + static_cast<std::uint64_t>(cpu)),
                        fmt::format("\\_SB_.SCK{}.C{:03x}", socket, cpu), 15);
    link(ctx, dir + "/physical_node", fmt::format("/sys/devices/system/cpu/cpu{}", cpu));
  }
}

void write_pcie_root_ports(const json& section, Context& ctx) {
  for (const auto& rp : section) {
    std::string where = fmt::format("{}: pcie root port {}", ctx.machine, rp.value("bdf", "?"));
    PciDeviceSpec s;
    s.bdf = bdf(rp.at("bdf"), where);
    auto id = rp.at("id").get<std::string>();
    s.config = ConfigImage(static_cast<std::uint16_t>(std::stoul(id.substr(0, 4), nullptr, 16)),
                           static_cast<std::uint16_t>(std::stoul(id.substr(5, 4), nullptr, 16)), 0x060400, 1);
    s.config.set_revision(static_cast<std::uint8_t>(num_or(rp, "rev", 0, where)));
    auto buses = rp.value("buses", json::array({s.bdf.bus + 1, s.bdf.bus + 1}));
    s.config.set_bus_numbers(s.bdf.bus, static_cast<std::uint8_t>(num(buses.at(0), where)),
                             static_cast<std::uint8_t>(num(buses.at(1), where)));
    unsigned pcie_at = 0x40;
    if (rp.contains("caps")) {
      for (const auto& cap : rp["caps"]) {
        if (cap.contains("pcie")) pcie_at = static_cast<unsigned>(num(cap.at("at"), where));
        add_cap(s.config, cap, where);
      }
    } else {
      s.config.add_pcie_cap(0x40, 0x4);
      s.config.add_ext_cap(0x100, 0x01, 2);  // AER
    }
    // Link Capabilities (Express cap + 0x0c): max width [9:4], max speed [3:0].
    if (rp.contains("link_width"))
      s.config.w32(pcie_at + 0x0c, static_cast<std::uint32_t>(num(rp["link_width"], where)) << 4 |
                                       static_cast<std::uint32_t>(num_or(rp, "link_speed", 4, where)));
    if (rp.contains("rcmap")) {
      // Tegra410 RC-mapping DVSEC: bus +0xc, segment +0xd, RP# +0xe, RC# +0xf, socket# +0x10.
      const json& m = rp["rcmap"];
      auto at = static_cast<std::uint16_t>(num(m.at("at"), where));
      s.config.add_dvsec(at, 0x10de, 4, 1, static_cast<std::uint16_t>(num_or(m, "len", 0x14, where)));
      s.config.w8(at + 0x0cu, static_cast<std::uint8_t>(num_or(m, "bus", s.bdf.bus, where)));
      s.config.w8(at + 0x0du, static_cast<std::uint8_t>(num_or(m, "segment", s.bdf.domain & 0xff, where)));
      s.config.w8(at + 0x0eu, static_cast<std::uint8_t>(num(m.at("rp"), where)));
      s.config.w8(at + 0x0fu, static_cast<std::uint8_t>(num(m.at("rc"), where)));
      s.config.w8(at + 0x10u, static_cast<std::uint8_t>(num(m.at("socket"), where)));
    }
    s.numa_node = static_cast<int>(rp.value("numa_node", -1));
    ctx.builder.add_pci_device(s);
    ctx.device_node[s.bdf] = s.numa_node;
    for (const auto& ep : rp.value("endpoints", json::array())) {
      std::string ew = where + " endpoint " + ep.value("bdf", "?");
      PciDeviceSpec e;
      e.bdf = bdf(ep.at("bdf"), ew);
      auto eid = ep.at("id").get<std::string>();
      e.config = ConfigImage(static_cast<std::uint16_t>(std::stoul(eid.substr(0, 4), nullptr, 16)),
                             static_cast<std::uint16_t>(std::stoul(eid.substr(5, 4), nullptr, 16)),
                             static_cast<std::uint32_t>(num_or(ep, "class", 0x010802, ew)));
      e.config.add_pcie_cap(0x40, 0x0);
      e.numa_node = s.numa_node;
      ctx.builder.add_pci_device(e);
      ctx.device_node[e.bdf] = e.numa_node;
    }
  }
}

void write_apmt(const json& section, Context& ctx) {
  std::string where = ctx.machine + ": apmt";
  std::vector<std::uint8_t> table(36, 0);
  put_text(table, 0, "APMT", 4);
  table[8] = static_cast<std::uint8_t>(num_or(section, "revision", 0, where));
  put_text(table, 10, section.value("oem_id", "PMUKIT"), 6);
  put_text(table, 16, section.value("oem_table_id", "SYNTHETC"), 8);
  put(table, 24, num_or(section, "oem_revision", 1, where), 4);
  put_text(table, 28, section.value("creator_id", "PMUK"), 4);
  put(table, 32, num_or(section, "creator_revision", 1, where), 4);
  unsigned k = 0;
  for (const auto& n : section.at("nodes")) {
    std::string nw = fmt::format("{} node {}", where, k++);
    std::uint64_t count = num_or(n, "repeat", 1, nw);
    for (std::uint64_t i = 0; i < count; ++i) add_apmt_node(ctx, n, i, table, nw);
  }
  put(table, 4, table.size(), 4);
  unsigned sum = 0;
  for (auto b : table) sum += b;
  table[9] = static_cast<std::uint8_t>(0x100 - (sum & 0xff));
  if (section.value("bad_checksum", false)) table[9] ^= 0x5a;
  ctx.builder.add_acpi_table("APMT", table);
}

void write_acpi_devices(const json& section, Context& ctx) {
  ensure_acpi_root(ctx);
  for (const auto& d : section) {
    std::string hid = d.at("hid").get<std::string>();
    std::string where = fmt::format("{}: acpi device {}", ctx.machine, hid);
    std::optional<std::string> uid;
    if (d.contains("uid")) uid = std::to_string(num(d["uid"], where));
    std::string dir = add_acpi_device(ctx, std::string(kAcpiRoot), hid, uid, d.value("path", ""),
                                      static_cast<std::uint32_t>(num_or(d, "status", 15, where)));
    std::string name = fs::path(dir).filename().string();
    // The ACPI core creates a platform device of the same name; its MEM resources show in
    // /proc/iomem under that name (and again, nested, once a driver claims them).
    std::string pdev = "/sys/devices/platform/" + name;
    ctx.builder.write_text(pdev + "/modalias", "acpi:" + hid + ":\n");
    link(ctx, dir + "/physical_node", pdev);
    bool claimed = d.contains("kernel_pmu");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> res;
    if (d.contains("instances")) {
      const json& in = d["instances"];
      std::uint64_t count = num(in.at("count"), where), base = num(in.at("base"), where);
      std::uint64_t stride = num(in.at("stride"), where), size = num(in.at("size"), where);
      for (std::uint64_t i = 0; i < count; ++i) res.emplace_back(base + i * stride, size);
      if (in.contains("broadcast")) res.emplace_back(num(in["broadcast"], where), size);
    }
    for (const auto& r : d.value("resources", json::array()))
      res.emplace_back(num(r.at("base"), where), num(r.at("size"), where));
    for (const auto& [base, size] : res) {
      add_iomem(ctx, base, size, name);
      if (claimed) add_iomem(ctx, base, size, name, 1);
    }
    if (claimed)
      add_kernel_pmu(ctx, pdev, d["kernel_pmu"].get<std::string>(), next_pmu_type(ctx),
                     d.value("pmu_files", json::object()));
  }
}

}  // namespace pmukit::snapshot::spec
