// pmukit -- machine-spec sections for Arm servers and PCIe-vendor PMUs: /proc/iomem, ACPI
// processors and devices as Linux shows them in sysfs, PCIe root ports (with the Tegra410
// RC-mapping DVSEC and endpoints below), and the perf PMUs a loaded driver registers. Everything is written where Linux
// puts it, so discovery reads a synthetic machine exactly as it reads a real one (docs/snapshot-format.md).
#include <algorithm>

#include <fmt/format.h>

#include "pmukit/snapshot/spec_context.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"

namespace pmukit::snapshot::spec {

namespace fs = std::filesystem;

namespace {

void rewrite_iomem(Context& ctx) {
  ctx.iomem_dirty = false;
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
  if (size == 0 || start > UINT64_MAX - (size - 1))
    throw SpecError(fmt::format("{}: memory range {:#x}+{:#x} is empty or wraps", name, start, size));
  ctx.iomem.push_back({start, start + size - 1, name, depth});
  ctx.iomem_dirty = true;
}

// A relative symlink, as sysfs makes them, so the tree stays valid wherever it is moved.
void link(Context& ctx, std::string_view link_abs, std::string_view target_abs) {
  ctx.builder.make_link(link_abs, target_abs);
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

// A perf PMU registered by a driver under `parent_abs` (pmu.parent), with its sysfs files; the
// names were checked to be single file names (spec::name).
void add_kernel_pmu(Context& ctx, const std::string& parent_abs, const std::string& name, int type, const json& files,
                    const std::string& where) {
  std::string dir = parent_abs + "/" + name;
  ctx.builder.write_text(dir + "/type", fmt::format("{}\n", type));
  if (!files.is_object()) expected(where, "an object of file names and texts", files);
  for (const auto& [file, text] : files.items()) {
    std::string fw = key_path(where, file);
    std::string f = spec::name(json(file), where);
    if (f == "type") throw SpecError(fmt::format("{}: the PMU's type is written by pmukit", fw));
    if (!text.is_string()) expected(fw, "a string", text);
    ctx.builder.write_text(dir + "/" + f, text.get<std::string>() + "\n");
  }
  link(ctx, "/sys/bus/event_source/devices/" + name, dir);
}

int next_pmu_type(Context& ctx) {
  return 100 + ctx.acpi_instances["#pmu"]++;
}

void flush_iomem(Context& ctx) {
  if (ctx.iomem_dirty) rewrite_iomem(ctx);
}

void write_iomem_section(const json& section, Context& ctx) {
  const std::string sw = "iomem";
  ctx.iomem_hidden = flag_or(section, "hide_addresses", false, sw);
  const json& ranges = list_or_empty(section, "ranges", sw);
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    std::string where = index_path(key_path(sw, "ranges"), i);
    const json& r = ranges[i];
    ctx.iomem.push_back({num(need(r, "start", where), key_path(where, "start")),
                         num(need(r, "end", where), key_path(where, "end")), str(r, "name", where),
                         static_cast<unsigned>(num_or_in(r, "depth", 0, 16, where))});
  }
  ctx.iomem_dirty = true;
}

void write_acpi_processors(const json& section, Context& ctx) {
  ensure_acpi_root(ctx);
  std::uint64_t uid_base = num_or_in(section, "uid_base", 0, 0xffffffff, "acpi_processors");
  bool containers = flag_or(section, "containers", true, "acpi_processors");
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

namespace {

// Tegra410 RC-mapping DVSEC: bus +0xc, segment +0xd, RP# +0xe, RC# +0xf, socket# +0x10.
void write_rcmap_dvsec(PciDeviceSpec& s, const json& m, const std::string& mw) {
  auto at = num(need(m, "at", mw), key_path(mw, "at"));
  if (at % 4 || at < 0x100 || at > 0xfe0)
    throw SpecError(fmt::format("{}.at: {:#x} is not a dword-aligned extended capability offset", mw, at));
  s.config.add_dvsec(static_cast<std::uint16_t>(at), 0x10de, 4, 1,
                     static_cast<std::uint16_t>(num_or_in(m, "len", 0x14, 0xfff, mw)));
  const auto base = static_cast<unsigned>(at);
  s.config.w8(base + 0x0cu, static_cast<std::uint8_t>(num_or_in(m, "bus", s.bdf.bus, 0xff, mw)));
  s.config.w8(base + 0x0du, static_cast<std::uint8_t>(num_or_in(m, "segment", s.bdf.domain & 0xff, 0xff, mw)));
  s.config.w8(base + 0x0eu, static_cast<std::uint8_t>(num_in(need(m, "rp", mw), 0xff, key_path(mw, "rp"))));
  s.config.w8(base + 0x0fu, static_cast<std::uint8_t>(num_in(need(m, "rc", mw), 0xff, key_path(mw, "rc"))));
  s.config.w8(base + 0x10u, static_cast<std::uint8_t>(num_in(need(m, "socket", mw), 0xff, key_path(mw, "socket"))));
}

// The functions below one root port (NVMe-class endpoints unless a class or type is given, and
// bridges with the functions below them), placed in /sys/devices below the port.
void add_endpoints(Context& ctx, const json& rp, const Bdf& port, const std::string& where, int numa_node) {
  const json& endpoints = list_or_empty(rp, "endpoints", where);
  const std::string dir = fmt::format("/sys/devices/pci{:04x}:{:02x}/{}", port.domain, port.bus, port.str());
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    const json& ep = endpoints[i];
    std::string ew = index_path(key_path(where, "endpoints"), i);
    if (!ep.is_object()) expected(ew, "an object", ep);
    pci_id(need(ep, "id", ew), key_path(ew, "id"));  // checked here, with the message of the other sections
    add_function(ctx, ep, bdf(need(ep, "bdf", ew), key_path(ew, "bdf")), numa_node, ew, dir);
  }
}

// The perf PMU a loaded DesignWare PMU driver registers for a root port, below its platform device.
void add_root_port_pmu(Context& ctx, const json& rp, const Bdf& port, const std::string& where) {
  if (!opt(rp, "kernel_pmu", where)) return;
  const std::string pmu = spec::name(rp["kernel_pmu"], key_path(where, "kernel_pmu"));
  const std::string pdev = fmt::format("/sys/devices/platform/dwc_pcie_pmu.{:x}", port.domain << 16 | port.rid());
  const json* files = opt(rp, "pmu_files", where);
  add_kernel_pmu(ctx, pdev, pmu, next_pmu_type(ctx), files ? *files : json::object(), key_path(where, "pmu_files"));
}

}  // namespace

void write_pcie_root_ports(const json& section, Context& ctx) {
  const std::string sw = "pcie_root_ports";
  if (!section.is_array()) expected(sw, "an array", section);
  for (std::size_t index = 0; index < section.size(); ++index) {
    const json& rp = section[index];
    std::string where = index_path(sw, index);
    PciDeviceSpec s;
    s.bdf = bdf(need(rp, "bdf", where), key_path(where, "bdf"));
    auto [vendor, device] = pci_id(need(rp, "id", where), key_path(where, "id"));
    s.config = ConfigImage(vendor, device, 0x060400, 1);
    s.config.set_revision(static_cast<std::uint8_t>(num_or_in(rp, "rev", 0, 0xff, where)));
    std::uint8_t secondary = static_cast<std::uint8_t>(s.bdf.bus + 1), subordinate = secondary;
    if (const json* buses = opt(rp, "buses", where)) {
      std::string bw = key_path(where, "buses");
      secondary = static_cast<std::uint8_t>(num_in(item(*buses, 0, bw), 0xff, index_path(bw, 0)));
      subordinate = static_cast<std::uint8_t>(num_in(item(*buses, 1, bw), 0xff, index_path(bw, 1)));
    }
    s.config.set_bus_numbers(s.bdf.bus, secondary, subordinate);
    unsigned pcie_at = 0x40;
    if (const json* caps = opt(rp, "caps", where)) {
      std::string cw = key_path(where, "caps");
      if (!caps->is_array()) expected(cw, "an array", *caps);
      for (std::size_t i = 0; i < caps->size(); ++i) {
        const json& cap = (*caps)[i];
        if (opt(cap, "pcie", index_path(cw, i)))
          pcie_at = static_cast<unsigned>(num(cap["at"], index_path(cw, i) + ".at"));
        add_cap(s.config, cap, index_path(cw, i));
      }
    } else {
      s.config.add_pcie_cap(0x40, 0x4);
      s.config.add_ext_cap(0x100, 0x01, 2);  // AER
    }
    // Link Capabilities (Express cap + 0x0c): max width [9:4], max speed [3:0].
    if (opt(rp, "link_width", where))
      s.config.w32(pcie_at + 0x0c,
                   static_cast<std::uint32_t>(num_in(rp["link_width"], 0x3f, key_path(where, "link_width"))) << 4 |
                       static_cast<std::uint32_t>(num_or_in(rp, "link_speed", 4, 0xf, where)));
    if (const json* m = opt(rp, "rcmap", where)) write_rcmap_dvsec(s, *m, key_path(where, "rcmap"));
    s.numa_node = int_or(rp, "numa_node", -1, -1, static_cast<int>(limits::kNumaNodes) - 1, where);
    ctx.builder.add_pci_device(s);
    ctx.device_node[s.bdf] = s.numa_node;
    add_endpoints(ctx, rp, s.bdf, where, s.numa_node);
    add_root_port_pmu(ctx, rp, s.bdf, where);
  }
}

// An ACPI device without _HID (`device:NN`, as Linux names them): a PCI slot's _ADR object below
// the host bridge PNP0A08:00, with `adr` (`slot` << 16) and `path` files, and -- when a function
// sits there (`companion`) -- its physical_node linked to that function; no hid file, no platform
// device, no /proc/iomem range of its own.
void add_adr_device(Context& ctx, const json& d, const std::string& where) {
  std::string bridge = std::string(kAcpiRoot) + "/PNP0A08:00";
  if (ctx.acpi_instances["PNP0A08"] == 0)
    add_acpi_device(ctx, std::string(kAcpiRoot), "PNP0A08", "0", "\\_SB_.PC00", 15);
  std::uint64_t slot = num_in(need(d, "slot", where), 31, key_path(where, "slot"));
  std::string name = fmt::format("device:{:02x}", ctx.acpi_instances["device"]++);
  std::string dir = bridge + "/" + name;
  ctx.builder.write_text(dir + "/adr", fmt::format("{:#010x}\n", slot << 16));
  if (auto path = str_or(d, "path", "", where); !path.empty()) ctx.builder.write_text(dir + "/path", path + "\n");
  link(ctx, "/sys/bus/acpi/devices/" + name, dir);
  if (opt(d, "companion", where)) {
    auto bdf = Bdf::parse(str(d, "companion", where));
    if (!bdf) throw SpecError(fmt::format("{}: companion is not a PCI address", key_path(where, "companion")));
    link(ctx, dir + "/physical_node", "/sys/bus/pci/devices/" + bdf->str());
  }
}

void write_acpi_devices(const json& section, Context& ctx) {
  ensure_acpi_root(ctx);
  const std::string sw = "acpi_devices";
  if (!section.is_array()) expected(sw, "an array", section);
  for (std::size_t index = 0; index < section.size(); ++index) {
    const json& d = section[index];
    std::string where = index_path(sw, index);
    if (!opt(d, "hid", where)) {
      add_adr_device(ctx, d, where);
      continue;
    }
    std::string hid = spec::name(need(d, "hid", where), key_path(where, "hid"));
    std::optional<std::string> uid;
    if (const json* u = opt(d, "uid", where)) uid = std::to_string(num(*u, key_path(where, "uid")));
    std::string dir = add_acpi_device(ctx, std::string(kAcpiRoot), hid, uid, str_or(d, "path", "", where),
                                      static_cast<std::uint32_t>(num_or_in(d, "status", 15, 0xffffffff, where)));
    std::string name = fs::path(dir).filename().string();
    // The ACPI core creates a platform device of the same name; its MEM resources show in
    // /proc/iomem under that name (and again, nested, once a driver claims them).
    std::string pdev = "/sys/devices/platform/" + name;
    ctx.builder.write_text(pdev + "/modalias", "acpi:" + hid + ":\n");
    link(ctx, dir + "/physical_node", pdev);
    bool claimed = opt(d, "kernel_pmu", where) != nullptr;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> res;
    if (const json* in = opt(d, "instances", where)) {
      std::string iw = key_path(where, "instances");
      std::uint64_t count = num_in(need(*in, "count", iw), limits::kApmtNodes, key_path(iw, "count"));
      std::uint64_t base = num(need(*in, "base", iw), key_path(iw, "base"));
      std::uint64_t stride = num(need(*in, "stride", iw), key_path(iw, "stride"));
      std::uint64_t size = num(need(*in, "size", iw), key_path(iw, "size"));
      if (count && stride && count - 1 > (UINT64_MAX - base) / stride)
        throw SpecError(fmt::format("{}: base + stride x count overflows", iw));
      for (std::uint64_t i = 0; i < count; ++i) res.emplace_back(base + i * stride, size);
      if (const json* b = opt(*in, "broadcast", iw)) res.emplace_back(num(*b, key_path(iw, "broadcast")), size);
    }
    const json& resources = list_or_empty(d, "resources", where);
    for (std::size_t i = 0; i < resources.size(); ++i) {
      std::string rw = index_path(key_path(where, "resources"), i);
      res.emplace_back(num(need(resources[i], "base", rw), key_path(rw, "base")),
                       num(need(resources[i], "size", rw), key_path(rw, "size")));
    }
    for (const auto& [base, size] : res) {
      add_iomem(ctx, base, size, name);
      if (claimed) add_iomem(ctx, base, size, name, 1);
    }
    if (claimed) {
      std::string pmu = spec::name(d["kernel_pmu"], key_path(where, "kernel_pmu"));
      const json* files = opt(d, "pmu_files", where);
      add_kernel_pmu(ctx, pdev, pmu, next_pmu_type(ctx), files ? *files : json::object(), key_path(where, "pmu_files"));
    }
  }
}

}  // namespace pmukit::snapshot::spec
