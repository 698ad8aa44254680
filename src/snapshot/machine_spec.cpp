// pmukit -- machine specs: the section table, CPU and PCI sections, bundled machines.
#include "pmukit/snapshot/machine_spec.h"

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/platform/embedded.h"
#include "pmukit/snapshot/spec_context.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/json_fields.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit::snapshot {

namespace spec {

void write_cpus(const json& spec, Context& ctx) {
  const std::string where = "topology";
  const json& topo = need(spec, "topology", "");
  auto sockets = num_in(need(topo, "sockets", where), limits::kSockets, key_path(where, "sockets"));
  auto dies = num_or_in(topo, "dies_per_socket", 1, limits::kDiesPerSocket, where);
  auto per_die = num_or_in(topo, "cpus_per_die", 2, limits::kCpus, where);
  if (sockets * dies * per_die > limits::kCpus)
    throw SpecError(fmt::format("{}: {} sockets x {} dies x {} CPUs is more than {} CPUs", where, sockets, dies,
                                per_die, limits::kCpus));
  bool numa = flag_or(topo, "numa", true, where);
  std::vector<CpuPlacement> cpus;
  int cpu = 0;
  for (int s = 0; s < static_cast<int>(sockets); ++s)
    for (int d = 0; d < static_cast<int>(dies); ++d)
      for (int c = 0; c < static_cast<int>(per_die); ++c, ++cpu) {
        cpus.push_back({cpu, s, d, numa ? s : -1});
        ctx.socket_first_cpu.emplace(s, cpu);
        ctx.cpu_package[cpu] = s;
        ctx.die_first_cpu.emplace(std::pair{s, d}, cpu);
      }
  ctx.builder.add_cpus(cpus);
  if (const json* ci = opt(spec, "cpuinfo", "")) {
    const std::string cw = "cpuinfo";
    CpuInfo info;
    info.vendor = str_or(*ci, "vendor", "", cw);
    info.family = static_cast<unsigned>(num_or_in(*ci, "family", 0, 0xffff, cw));
    info.model = static_cast<unsigned>(num_or_in(*ci, "model", 0, 0xffff, cw));
    info.stepping = static_cast<unsigned>(num_or_in(*ci, "stepping", 0, 0xffff, cw));
    info.model_name = str_or(*ci, "model_name", "Synthetic CPU", cw);
    info.flags = str_or(*ci, "flags", "", cw);
    info.arm_implementer = static_cast<unsigned>(num_or_in(*ci, "implementer", 0, 0xff, cw));
    info.arm_part = static_cast<unsigned>(num_or_in(*ci, "part", 0, 0xfff, cw));
    ctx.builder.set_cpuinfo(info);
  }
  // Every CPU gets an MSR device file, as with the msr driver loaded.
  if (flag_or(spec, "msr_devices", false, ""))
    for (int c = 0; c < cpu; ++c) ctx.builder.set_msr(c, 0, 0);
}

void write_msrs(const json& section, Context& ctx) {
  const std::string sw = "msrs";
  if (!section.is_array()) expected(sw, "an array", section);
  for (std::size_t i = 0; i < section.size(); ++i) {
    std::string where = index_path(sw, i);
    const json& m = section[i];
    ctx.builder.set_msr(static_cast<int>(num_in(need(m, "cpu", where), limits::kCpus - 1, key_path(where, "cpu"))),
                        static_cast<std::uint32_t>(num_in(need(m, "msr", where), 0xffffffff, key_path(where, "msr"))),
                        num(need(m, "value", where), key_path(where, "value")));
  }
}

void add_simple_device(Context& ctx, const Bdf& b, std::uint16_t vendor, std::uint16_t device, int numa_node) {
  if (ctx.device_node.count(b)) return;
  PciDeviceSpec s;
  s.bdf = b;
  s.config = ConfigImage(vendor, device, 0x088000);  // system peripheral
  s.config.add_pcie_cap(0x40, 0x9);                  // root complex integrated endpoint
  s.numa_node = numa_node;
  ctx.builder.add_pci_device(s);
  ctx.device_node[b] = numa_node;
}

namespace {

std::uint8_t port_type(const std::string& name, const std::string& where) {
  static const std::map<std::string, std::uint8_t> kTypes = {{"endpoint", 0x0},   {"root_port", 0x4}, {"upstream", 0x5},
                                                             {"downstream", 0x6}, {"rciep", 0x9},     {"rcec", 0xa}};
  auto it = kTypes.find(name);
  if (it == kTypes.end())
    throw SpecError(fmt::format("{}: unknown PCIe port type '{}' (endpoint, root_port, upstream, downstream, rciep, "
                                "rcec)",
                                where, name));
  return it->second;
}

}  // namespace

void add_cap(ConfigImage& c, const json& cap, const std::string& where) {
  auto at = num(need(cap, "at", where), key_path(where, "at"));
  // Standard capabilities live in 0x40..0xff, extended ones in 0x100..0xfff, dword-aligned.
  bool ext = !opt(cap, "pcie", where) && !opt(cap, "id", where);
  if (at % 4 || (ext ? at < 0x100 || at > 0xffc : at < 0x40 || at > 0xfc))
    throw SpecError(fmt::format("{}.at: {:#x} is not a dword-aligned {} capability offset ({})", where, at,
                                ext ? "extended" : "standard", ext ? "0x100..0xffc" : "0x40..0xfc"));
  if (const json* p = opt(cap, "pcie", where)) {
    if (!p->is_string()) expected(key_path(where, "pcie"), "a port type name", *p);
    return c.add_pcie_cap(static_cast<std::uint8_t>(at), port_type(p->get<std::string>(), key_path(where, "pcie")));
  }
  if (const json* d = opt(cap, "dvsec", where)) {
    std::string dw = key_path(where, "dvsec");
    return c.add_dvsec(static_cast<std::uint16_t>(at),
                       static_cast<std::uint16_t>(num_in(need(*d, "vendor", dw), 0xffff, key_path(dw, "vendor"))),
                       static_cast<std::uint16_t>(num_in(need(*d, "id", dw), 0xffff, key_path(dw, "id"))),
                       static_cast<std::uint8_t>(num_or_in(*d, "rev", 0, 0xf, dw)),
                       static_cast<std::uint16_t>(num_in(need(*d, "len", dw), 0xfff, key_path(dw, "len"))));
  }
  if (const json* v = opt(cap, "vsec", where)) {
    std::string vw = key_path(where, "vsec");
    return c.add_vsec(static_cast<std::uint16_t>(at),
                      static_cast<std::uint16_t>(num_in(need(*v, "id", vw), 0xffff, key_path(vw, "id"))),
                      static_cast<std::uint8_t>(num_or_in(*v, "rev", 0, 0xf, vw)),
                      static_cast<std::uint16_t>(num_in(need(*v, "len", vw), 0xfff, key_path(vw, "len"))));
  }
  if (const json* e = opt(cap, "ext", where))
    return c.add_ext_cap(static_cast<std::uint16_t>(at),
                         static_cast<std::uint16_t>(num_in(*e, 0xffff, key_path(where, "ext"))),
                         static_cast<std::uint8_t>(num_or_in(cap, "version", 1, 0xf, where)));
  if (const json* i = opt(cap, "id", where))
    return c.add_std_cap(static_cast<std::uint8_t>(at),
                         static_cast<std::uint8_t>(num_in(*i, 0xff, key_path(where, "id"))));
  throw SpecError(fmt::format("{}: a capability needs one of pcie, dvsec, vsec, ext, id", where));
}

void write_pci_devices(const json& section, Context& ctx) {
  const std::string section_where = "pci_devices";
  if (!section.is_array()) expected(section_where, "an array", section);
  for (std::size_t k = 0; k < section.size(); ++k) {
    const json& d = section[k];
    std::string where = index_path(section_where, k);
    PciDeviceSpec s;
    s.bdf = bdf(need(d, "bdf", where), key_path(where, "bdf"));
    auto [vendor, device] = pci_id(need(d, "id", where), key_path(where, "id"));
    s.config = ConfigImage(vendor, device, static_cast<std::uint32_t>(num_or_in(d, "class", 0x088000, 0xffffff, where)),
                           static_cast<std::uint8_t>(num_or_in(d, "header_type", 0, 0xff, where)));
    s.config.set_revision(static_cast<std::uint8_t>(num_or_in(d, "rev", 0, 0xff, where)));
    if (const json* b = opt(d, "bus_numbers", where)) {
      std::string bw = key_path(where, "bus_numbers");
      s.config.set_bus_numbers(static_cast<std::uint8_t>(num_in(item(*b, 0, bw), 0xff, index_path(bw, 0))),
                               static_cast<std::uint8_t>(num_in(item(*b, 1, bw), 0xff, index_path(bw, 1))),
                               static_cast<std::uint8_t>(num_in(item(*b, 2, bw), 0xff, index_path(bw, 2))));
    }
    const json& caps = list_or_empty(d, "caps", where);
    for (std::size_t i = 0; i < caps.size(); ++i) add_cap(s.config, caps[i], index_path(key_path(where, "caps"), i));
    // The sysfs config file holds 64, 256 or 4096 bytes (Linux pci-sysfs.c: config_attr sizes).
    s.config_size = static_cast<unsigned>(num_or(d, "config_size", 4096, where));
    if (s.config_size != 64 && s.config_size != 256 && s.config_size != 4096)
      throw SpecError(fmt::format("{}.config_size: {} is not 64, 256 or 4096", where, s.config_size));
    s.numa_node = int_or(d, "numa_node", -1, -1, static_cast<int>(limits::kNumaNodes) - 1, where);
    const json& bars = list_or_empty(d, "bars", where);
    for (std::size_t i = 0; i < bars.size(); ++i) {
      std::string bw = index_path(key_path(where, "bars"), i);
      // A BAR's resourceN file is a sparse file of its size: 16 TiB is what ext4 allows.
      BarSpec bar{static_cast<int>(num_in(need(bars[i], "index", bw), 5, key_path(bw, "index"))),
                  num(need(bars[i], "base", bw), key_path(bw, "base")),
                  num_in(need(bars[i], "size", bw), 1ull << 44, key_path(bw, "size")),
                  flag_or(bars[i], "mem64", true, bw), flag_or(bars[i], "prefetchable", false, bw)};
      if (bar.size == 0 || bar.base % bar.size || bar.base > UINT64_MAX - bar.size)
        throw SpecError(
            fmt::format("{}: base {:#x} size {:#x} is not a naturally aligned BAR", bw, bar.base, bar.size));
      s.bars.push_back(bar);
    }
    ctx.builder.add_pci_device(s);
    ctx.device_node[s.bdf] = s.numa_node;
    // Raw config writes land last, over whatever the BARs and capabilities put there.
    const json& writes = list_or_empty(d, "config_writes", where);
    for (std::size_t i = 0; i < writes.size(); ++i) {
      std::string ww = index_path(key_path(where, "config_writes"), i);
      auto v = static_cast<std::uint32_t>(num_in(need(writes[i], "u32", ww), 0xffffffff, key_path(ww, "u32")));
      auto at = num(need(writes[i], "at", ww), key_path(ww, "at"));
      if (at % 4 || at + 4 > s.config_size)
        throw SpecError(
            fmt::format("{}.at: {:#x} is not a dword inside the {}-byte config space", ww, at, s.config_size));
      std::uint8_t bytes[4] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                               static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
      ctx.builder.write_config(s.bdf, static_cast<unsigned>(at), bytes);
    }
  }
}

}  // namespace spec

namespace {

// The core's sections (spec_context.h); the families' go among them by their order.
constexpr spec::Section kSections[] = {
    {"pci_devices", 10, spec::write_pci_devices},
    {"msrs", 20, spec::write_msrs},
    {"iomem", 50, spec::write_iomem_section},
    {"acpi_processors", 60, spec::write_acpi_processors},
    {"pcie_root_ports", 70, spec::write_pcie_root_ports},
    {"acpi_devices", 90, spec::write_acpi_devices},
};

std::vector<spec::Section> sections_in_order(std::span<const spec::Section> family_sections) {
  std::vector<spec::Section> all(std::begin(kSections), std::end(kSections));
  all.insert(all.end(), family_sections.begin(), family_sections.end());
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  return all;
}

// "[json.exception.type_error.302] type must be ..." without the library's tag.
std::string json_message(const nlohmann::json::exception& e) {
  std::string_view m = e.what();
  if (m.starts_with('[')) m.remove_prefix(std::min(m.size(), m.find("] ") + 2));
  return std::string(m);
}

}  // namespace

void build_from_spec(const nlohmann::json& s, const std::filesystem::path& root, std::string_view origin,
                     std::span<const spec::Section> family_sections) {
  std::error_code ec;
  if (std::filesystem::exists(root, ec) && !std::filesystem::is_empty(root, ec))
    throw Error(fmt::format("{}: not empty; refusing to build a machine over it", root.string()));
  std::string prefix = origin.empty() ? "machine spec: " : fmt::format("{}: ", origin);
  try {
    if (!s.is_object()) spec::expected("the spec", "a JSON object", s);
    SnapshotBuilder builder(root);
    spec::Context ctx{builder, spec::str_or(s, "name", "machine", "")};
    if (spec::opt(s, "label", "")) builder.set_synthetic_label(spec::str(s, "label", ""));
    spec::write_cpus(s, ctx);
    for (const auto& section : sections_in_order(family_sections))
      if (const auto* j = spec::opt(s, section.key, "")) section.write(*j, ctx);
    spec::flush_iomem(ctx);
  } catch (const spec::SpecError& e) {
    throw Error(prefix + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw Error(prefix + json_message(e));
  }
}

std::vector<BundledMachine> bundled_machines() {
  std::vector<BundledMachine> out;
  for (const auto& f : platform::embedded_files()) {
    if (!f.path.starts_with("machines/") || !f.path.ends_with(".json")) continue;
    auto doc = nlohmann::json::parse(f.data);
    out.push_back({doc.at("name").get<std::string>(), doc.value("label", "")});
  }
  return out;
}

void build_bundled(std::string_view name, const std::filesystem::path& root,
                   std::span<const spec::Section> family_sections) {
  auto data = platform::find_embedded(fmt::format("machines/{}.json", name));
  if (!data) {
    std::string known;
    for (const auto& m : bundled_machines()) known += (known.empty() ? "" : ", ") + m.name;
    throw UsageError(fmt::format("no bundled machine '{}' (known: {})", name, known));
  }
  build_from_spec(nlohmann::json::parse(*data), root, fmt::format("machine {}", name), family_sections);
}

}  // namespace pmukit::snapshot
