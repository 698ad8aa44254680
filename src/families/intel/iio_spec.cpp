// pmukit -- the "intel_iio" machine-spec section: IIO stacks as an Intel server's firmware shows
// them in config space, with the root ports, switches, endpoints and accelerators on each stack.
//
// Three styles, one per way the hardware publishes stack root buses (docs/snapshot-format.md):
//  "ubox"  Skylake-SP: UBOX 8086:2014 with CPUNODEID (0xC0), GIDNIDMAP (0xD4), and 8086:2016 at
//          function 2 of its device with CPUBUSNO (0xCC, 0xD0)
//  "sad"   Ice Lake / Snow Ridge: 8086:09A2 at device 0 of every stack bus, SAD_CONTROL_CFG (0x3F4)
//  "msm"   Sapphire Rapids and later: MSM 8086:09A6 with CPUBUSNO_VALID (0x1A0) and CPUBUSNO0-7
//          (0x190-0x19C, 0x1C0-0x1CC), 8086:09A2 SAD_CONTROL_CFG on each stack bus, and a PCU
//          8086:325B with the die chop in CAPID4 (0x94) bits 7:6.
// Register places are written here from PCM (pcm-iio-topology.cpp, utils.cpp get_cpu_bus, types.h)
// and Linux uncore_snbep.c, independently of the platform data that reads them back.
#include "iio_spec.h"

#include <fmt/format.h>

#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::snapshot::spec {

namespace {

namespace fs = std::filesystem;

struct Style {
  std::uint16_t locator_id;
  unsigned cpubusno_lo, cpubusno_hi;  // first dword of entries 0-3 and 4-7 (SKX: 0xcc, 0xd0)
};

std::uint16_t id_part(const std::string& id, int which, const std::string& where) {
  auto ids = split(id, ':');
  auto v = ids.size() == 2 ? parse_hex(ids[which]) : std::nullopt;
  if (!v || *v > 0xffff) throw Error(fmt::format("{}: id '{}' must be vvvv:dddd", where, id));
  return static_cast<std::uint16_t>(*v);
}

void add(Context& ctx, PciDeviceSpec& s, int node, const std::string& where) {
  if (ctx.device_node.count(s.bdf)) throw Error(fmt::format("{}: device {} written twice", where, s.bdf.str()));
  s.numa_node = node;
  ctx.builder.add_pci_device(s);
  ctx.device_node[s.bdf] = node;
}

// An Intel register device (class 0x088000, a root-complex integrated endpoint) with dwords set.
void add_register_device(Context& ctx, Bdf at, std::uint16_t device, const std::map<unsigned, std::uint32_t>& regs,
                         int node, const std::string& where) {
  PciDeviceSpec s;
  s.bdf = at;
  s.config = ConfigImage(0x8086, device, 0x088000);
  s.config.add_pcie_cap(0x40, 0x9);
  for (const auto& [off, v] : regs) s.config.w32(off, v);
  add(ctx, s, node, where);
}

void write_stack_devices(Context& ctx, const json& st, std::uint32_t domain, std::uint8_t bus, int node,
                         const std::string& where) {
  for (const auto& rp : st.value("root_ports", json::array())) {
    json d = rp;
    d["type"] = "root_port";
    if (!d.contains("id")) d["id"] = "8086:0000";
    Bdf b{domain, bus, static_cast<std::uint8_t>(num(rp.at("dev"), where)),
          static_cast<std::uint8_t>(num_or(rp, "fn", 0, where))};
    add_function(ctx, d, b, node, fmt::format("{} root port {}", where, b.str()));
  }
  for (const auto& f : st.value("functions", json::array())) {
    std::string w = where + " function " + f.value("bdf", "?");
    add_function(ctx, f, bdf(f.at("bdf"), w), node, w);
  }
}

// Linux's view: /sys/devices/uncore_iio_<pmu>/die<x> = "segment:bus" (skx_iio_mapping_show), linked
// from the event_source bus as for every uncore PMU.
void register_pmu(Context& ctx, const std::string& name, unsigned type) {
  std::string dir = "/sys/devices/" + name;
  ctx.builder.write_text(dir + "/type", fmt::format("{}\n", type));
  fs::path l = ctx.builder.path("/sys/bus/event_source/devices/" + name), t = ctx.builder.path(dir);
  fs::create_directories(l.parent_path());
  std::error_code ec;
  if (!fs::exists(l, ec)) fs::create_symlink(t.lexically_relative(l.parent_path()), l);
}

// The kernel registers uncore_iio_free_running_<n> beside each IIO PMU (skx/snr/icx/spr
// *_uncore_iio_free_running).
void write_kernel_file(Context& ctx, unsigned pmu, int die, const std::string& value) {
  register_pmu(ctx, fmt::format("uncore_iio_{}", pmu), 60 + pmu);
  register_pmu(ctx, fmt::format("uncore_iio_free_running_{}", pmu), 80 + pmu);
  ctx.builder.write_text(fmt::format("/sys/devices/uncore_iio_{}/die{}", pmu, die), value + "\n");
}

void write_socket(Context& ctx, const json& sj, const std::string& style, const std::string& where) {
  int socket = static_cast<int>(num(sj.at("socket"), where + " socket"));
  int node = static_cast<int>(sj.value("numa_node", socket));
  std::uint32_t domain = static_cast<std::uint32_t>(num_or(sj, "domain", 0, where));
  std::map<unsigned, std::uint8_t> entries;  // entry -> root bus
  std::uint32_t valid = 0;
  for (const auto& st : sj.at("stacks")) {
    unsigned entry = static_cast<unsigned>(num(st.at("entry"), where + " entry"));
    auto bus = static_cast<std::uint8_t>(num(st.at("bus"), where + " bus"));
    std::string w = fmt::format("{} stack {}", where, entry);
    entries[entry] = bus;
    if (st.value("valid", true)) valid |= 1u << entry;
    if (style != "ubox" && st.value("sad_device", true)) {
      // SAD_CONTROL_CFG: socket in bits 3:0, stack id in bits 6:4 (Linux SAD_CONTROL_STACK_ID).
      unsigned sad = static_cast<unsigned>(num_or(st, "sad_id", entry, w));
      std::uint32_t cfg = static_cast<std::uint32_t>(num_or(st, "sad_socket", socket, w)) | (sad & 7u) << 4;
      add_register_device(ctx, Bdf{domain, bus, 0, 0}, 0x09a2, {{0x3f4, cfg}}, node, w);
    }
    write_stack_devices(ctx, st, domain, bus, node, w);
    if (st.contains("pmu") && ctx.kernel_iio_files)
      write_kernel_file(ctx, static_cast<unsigned>(num(st["pmu"], w)), static_cast<int>(sj.value("die", socket)),
                        fmt::format("{:04x}:{:02x}", domain, bus));
  }
  auto dword = [&](unsigned first) {
    std::uint32_t v = 0;
    for (unsigned k = 0; k < 4; ++k)
      if (auto it = entries.find(first + k); it != entries.end()) v |= static_cast<std::uint32_t>(it->second) << 8 * k;
    return v;
  };
  if (style == "ubox") {
    // CPUNODEID bits 2:0; GIDNIDMAP: node id of socket i in bits 3i+2:3i (identity unless given).
    std::uint32_t gid = 0;
    for (unsigned i = 0; i < 8; ++i) gid |= i << (3 * i);
    // As real machines have them: 8086:2014 (node ID registers) at the given place, device 8
    // function 0, and 8086:2016 (CPUBUSNO) at function 2 of the same device.
    const Bdf ubox = bdf(sj.at("ubox"), where + " ubox");
    std::map<unsigned, std::uint32_t> ids = {{0xc0, static_cast<std::uint32_t>(num_or(sj, "nodeid", socket, where))},
                                             {0xd4, static_cast<std::uint32_t>(num_or(sj, "gidnidmap", gid, where))}};
    add_register_device(ctx, ubox, 0x2014, ids, node, where + " ubox");
    add_register_device(ctx, Bdf{ubox.domain, ubox.bus, ubox.dev, 2}, 0x2016, {{0xcc, dword(0)}, {0xd0, dword(4)}},
                        node, where + " ubox");
  } else if (style == "msm") {
    std::map<unsigned, std::uint32_t> regs = {{0x1a0, static_cast<std::uint32_t>(num_or(sj, "valid", valid, where))}};
    for (unsigned k = 0; k < 4; ++k) regs[0x190 + 4 * k] = dword(4 * k), regs[0x1c0 + 4 * k] = dword(16 + 4 * k);
    add_register_device(ctx, bdf(sj.at("msm"), where + " msm"), 0x09a6, regs, node, where + " msm");
  }
  if (sj.contains("pcu"))
    add_register_device(ctx, bdf(sj["pcu"], where + " pcu"), 0x325b,
                        {{0x94, static_cast<std::uint32_t>(num(sj.at("chop"), where + " chop")) << 6}}, node,
                        where + " pcu");
}

}  // namespace

// A function from {bdf, id, class, rev, type, buses, devices}: endpoints and RCiEPs get a PCIe
// capability of their type, bridges (upstream, downstream, root_port, pcie_pci_bridge, pci_bridge)
// a type-1 header with their bus range, and `devices` are the functions below a bridge. With the
// function's directory in Linux's /sys/devices tree (`sysfs_dir`, "" when not placed there), an
// "nvme": "nvmeN" member writes the NVMe class device below it and its /sys/class/nvme link, so
// that `readlink -f /sys/class/nvme/nvme*` finds the drive's root port as on a live machine.
void add_function(Context& ctx, const json& d, Bdf at, int node, const std::string& where,
                  const std::string& sysfs_dir) {
  std::string type = d.value("type", "endpoint");
  bool bridge = type == "root_port" || type == "upstream" || type == "downstream" || type == "pci_bridge" ||
                type == "pcie_pci_bridge";
  PciDeviceSpec s;
  s.bdf = at;
  auto id = d.at("id").get<std::string>();
  std::uint32_t cls = static_cast<std::uint32_t>(num_or(d, "class", bridge ? 0x060400 : 0x010802, where));
  s.config = ConfigImage(id_part(id, 0, where), id_part(id, 1, where), cls, bridge ? 1 : 0);
  s.config.set_revision(static_cast<std::uint8_t>(num_or(d, "rev", 0, where)));
  static const std::map<std::string, std::uint8_t> kTypes = {{"endpoint", 0x0},        {"root_port", 0x4},
                                                             {"upstream", 0x5},        {"downstream", 0x6},
                                                             {"pcie_pci_bridge", 0x7}, {"rciep", 0x9}};
  if (auto t = kTypes.find(type); t != kTypes.end())
    s.config.add_pcie_cap(0x40, t->second);
  else if (type != "pci" && type != "pci_bridge")
    throw Error(fmt::format("{}: unknown function type '{}'", where, type));
  if (bridge) {
    auto buses = d.at("buses");
    s.config.set_bus_numbers(at.bus, static_cast<std::uint8_t>(num(buses.at(0), where)),
                             static_cast<std::uint8_t>(num(buses.at(1), where)));
  }
  add(ctx, s, node, where);
  const std::string dir = sysfs_dir.empty() ? "" : sysfs_dir + "/" + at.str();
  if (const json* nvme = opt(d, "nvme", where)) {
    if (dir.empty()) throw SpecError(fmt::format("{}.nvme: only functions below pcie_root_ports have one", where));
    const std::string dev = name(*nvme, key_path(where, "nvme"));
    ctx.builder.write_text(dir + "/nvme/" + dev + "/dev", fmt::format("259:{}\n", ctx.acpi_instances["#nvme"]++));
    link(ctx, "/sys/class/nvme/" + dev, dir + "/nvme/" + dev);
  }
  for (const auto& below : d.value("devices", json::array())) {
    std::string w = where + " > " + below.value("bdf", "?");
    add_function(ctx, below, bdf(below.at("bdf"), w), node, w, dir);
  }
}

void write_intel_iio(const json& section, Context& ctx) {
  std::string where = ctx.machine + ": intel_iio";
  std::string style = section.at("style").get<std::string>();
  if (style != "ubox" && style != "sad" && style != "msm")
    throw Error(fmt::format("{}: style '{}' is not ubox, sad or msm", where, style));
  ctx.kernel_iio_files = section.value("kernel_files", false);
  for (const auto& s : section.at("sockets")) write_socket(ctx, s, style, fmt::format("{} socket", where));
  for (const auto& k : section.value("kernel_overrides", json::array()))
    write_kernel_file(ctx, static_cast<unsigned>(num(k.at("pmu"), where)), static_cast<int>(num(k.at("die"), where)),
                      k.at("value").get<std::string>());
  for (const auto& w : section.value("config_writes", json::array())) {
    auto v = static_cast<std::uint32_t>(num(w.at("u32"), where));
    std::uint8_t bytes[4] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                             static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
    ctx.builder.write_config(bdf(w.at("bdf"), where), static_cast<unsigned>(num(w.at("at"), where)), bytes);
  }
}

}  // namespace pmukit::snapshot::spec
