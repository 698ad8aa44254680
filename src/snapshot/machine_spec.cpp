// pmukit -- machine specs: the section table, CPU and PCI sections, bundled machines.
#include "pmukit/snapshot/machine_spec.h"

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/platform/embedded.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/json_fields.h"
#include "pmukit/util/text.h"
#include "spec_context.h"

namespace pmukit::snapshot {

namespace spec {

std::uint64_t num(const json& j, const std::string& where) {
  return json_number(j, where);
}

std::uint64_t num_or(const json& obj, const char* key, std::uint64_t fallback, const std::string& where) {
  return obj.contains(key) ? num(obj[key], fmt::format("{} {}", where, key)) : fallback;
}

Bdf bdf(const json& j, const std::string& where) {
  auto b = j.is_string() ? Bdf::parse(j.get<std::string>()) : std::nullopt;
  if (!b) throw Error(fmt::format("{}: '{}' is not a PCI address", where, j.dump()));
  return *b;
}

std::vector<unsigned> id_list(const json& j, const std::string& where) {
  std::vector<unsigned> ids;
  if (j.is_array()) {
    for (const auto& v : j) ids.push_back(static_cast<unsigned>(num(v, where)));
    return ids;
  }
  auto list = j.is_string() ? parse_cpu_list(j.get<std::string>()) : std::nullopt;
  if (!list) throw Error(fmt::format("{}: '{}' is not an id list", where, j.dump()));
  for (int v : *list) ids.push_back(static_cast<unsigned>(v));
  return ids;
}

void write_cpus(const json& spec, Context& ctx) {
  const json& topo = spec.at("topology");
  int sockets = static_cast<int>(num(topo.at("sockets"), "topology"));
  int dies = static_cast<int>(num_or(topo, "dies_per_socket", 1, "topology"));
  int per_die = static_cast<int>(num_or(topo, "cpus_per_die", 2, "topology"));
  bool numa = topo.value("numa", true);
  int cpu = 0;
  for (int s = 0; s < sockets; ++s)
    for (int d = 0; d < dies; ++d)
      for (int c = 0; c < per_die; ++c, ++cpu) {
        ctx.builder.add_cpu(cpu, s, d, numa ? s : -1);
        ctx.socket_first_cpu.emplace(s, cpu);
        ctx.cpu_package[cpu] = s;
        ctx.die_first_cpu.emplace(std::pair{s, d}, cpu);
      }
  if (spec.contains("cpuinfo")) {
    const json& ci = spec["cpuinfo"];
    CpuInfo info;
    info.vendor = ci.value("vendor", "");
    info.family = static_cast<unsigned>(num_or(ci, "family", 0, "cpuinfo"));
    info.model = static_cast<unsigned>(num_or(ci, "model", 0, "cpuinfo"));
    info.stepping = static_cast<unsigned>(num_or(ci, "stepping", 0, "cpuinfo"));
    info.model_name = ci.value("model_name", "Synthetic CPU");
    info.arm_implementer = static_cast<unsigned>(num_or(ci, "implementer", 0, "cpuinfo"));
    info.arm_part = static_cast<unsigned>(num_or(ci, "part", 0, "cpuinfo"));
    ctx.builder.set_cpuinfo(info);
  }
  // Every CPU gets an MSR device file, as with the msr driver loaded.
  if (spec.value("msr_devices", false))
    for (int c = 0; c < cpu; ++c) ctx.builder.set_msr(c, 0, 0);
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
  if (it == kTypes.end()) throw Error(fmt::format("{}: unknown PCIe port type '{}'", where, name));
  return it->second;
}

}  // namespace

void add_cap(ConfigImage& c, const json& cap, const std::string& where) {
  auto at = static_cast<std::uint16_t>(num(cap.at("at"), where + " at"));
  if (cap.contains("pcie")) return c.add_pcie_cap(static_cast<std::uint8_t>(at), port_type(cap["pcie"], where));
  if (cap.contains("dvsec")) {
    const json& d = cap["dvsec"];
    return c.add_dvsec(
        at, static_cast<std::uint16_t>(num(d.at("vendor"), where)), static_cast<std::uint16_t>(num(d.at("id"), where)),
        static_cast<std::uint8_t>(num_or(d, "rev", 0, where)), static_cast<std::uint16_t>(num(d.at("len"), where)));
  }
  if (cap.contains("vsec")) {
    const json& v = cap["vsec"];
    return c.add_vsec(at, static_cast<std::uint16_t>(num(v.at("id"), where)),
                      static_cast<std::uint8_t>(num_or(v, "rev", 0, where)),
                      static_cast<std::uint16_t>(num(v.at("len"), where)));
  }
  if (cap.contains("ext"))
    return c.add_ext_cap(at, static_cast<std::uint16_t>(num(cap["ext"], where)),
                         static_cast<std::uint8_t>(num_or(cap, "version", 1, where)));
  if (cap.contains("id"))
    return c.add_std_cap(static_cast<std::uint8_t>(at), static_cast<std::uint8_t>(num(cap["id"], where)));
  throw Error(fmt::format("{}: capability needs one of pcie, dvsec, vsec, ext, id", where));
}

void write_pci_devices(const json& section, Context& ctx) {
  for (const auto& d : section) {
    std::string where = fmt::format("{}: pci device {}", ctx.machine, d.value("bdf", "?"));
    PciDeviceSpec s;
    s.bdf = bdf(d.at("bdf"), where);
    const std::string id = d.at("id").get<std::string>();  // split() returns views into it
    auto ids = split(id, ':');
    auto vendor = ids.size() == 2 ? parse_hex(ids[0]) : std::nullopt;
    auto device = ids.size() == 2 ? parse_hex(ids[1]) : std::nullopt;
    if (!vendor || !device) throw Error(where + ": id must be vvvv:dddd");
    s.config = ConfigImage(static_cast<std::uint16_t>(*vendor), static_cast<std::uint16_t>(*device),
                           static_cast<std::uint32_t>(num_or(d, "class", 0x088000, where)),
                           static_cast<std::uint8_t>(num_or(d, "header_type", 0, where)));
    s.config.set_revision(static_cast<std::uint8_t>(num_or(d, "rev", 0, where)));
    if (d.contains("bus_numbers")) {
      const auto& b = d["bus_numbers"];
      s.config.set_bus_numbers(static_cast<std::uint8_t>(num(b.at(0), where)),
                               static_cast<std::uint8_t>(num(b.at(1), where)),
                               static_cast<std::uint8_t>(num(b.at(2), where)));
    }
    for (const auto& cap : d.value("caps", json::array())) add_cap(s.config, cap, where);
    s.config_size = static_cast<unsigned>(num_or(d, "config_size", 4096, where));
    s.numa_node = static_cast<int>(d.value("numa_node", -1));
    for (const auto& b : d.value("bars", json::array()))
      s.bars.push_back(BarSpec{static_cast<int>(num(b.at("index"), where)), num(b.at("base"), where),
                               num(b.at("size"), where), b.value("mem64", true), b.value("prefetchable", false)});
    ctx.builder.add_pci_device(s);
    ctx.device_node[s.bdf] = s.numa_node;
    // Raw config writes land last, over whatever the BARs and capabilities put there.
    for (const auto& w : d.value("config_writes", json::array())) {
      auto v = static_cast<std::uint32_t>(num(w.at("u32"), where));
      std::uint8_t bytes[4] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                               static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
      ctx.builder.write_config(s.bdf, static_cast<unsigned>(num(w.at("at"), where)), bytes);
    }
  }
}

}  // namespace spec

namespace {

struct Section {
  const char* key;
  void (*write)(const spec::json& section, spec::Context& ctx);
};

// Sections are written in this order; a section may rely on those above it.
constexpr Section kSections[] = {
    {"pci_devices", spec::write_pci_devices},
    {"msrs", spec::write_msrs},
    {"intel_tables", spec::write_intel_tables},
    {"intel_iio", spec::write_intel_iio},
    {"iomem", spec::write_iomem_section},
    {"acpi_processors", spec::write_acpi_processors},
    {"pcie_root_ports", spec::write_pcie_root_ports},
    {"apmt", spec::write_apmt},
    {"acpi_devices", spec::write_acpi_devices},
    {"cmn", spec::write_cmn},
};

}  // namespace

void build_from_spec(const nlohmann::json& s, const std::filesystem::path& root) {
  std::error_code ec;
  if (std::filesystem::exists(root, ec) && !std::filesystem::is_empty(root, ec))
    throw Error(fmt::format("{}: not empty; refusing to build a machine over it", root.string()));
  SnapshotBuilder builder(root);
  spec::Context ctx{builder, s.value("name", "machine")};
  try {
    if (s.contains("label")) builder.set_synthetic_label(s["label"].get<std::string>());
    spec::write_cpus(s, ctx);
    for (const auto& section : kSections)
      if (s.contains(section.key)) section.write(s[section.key], ctx);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("machine {}: {}", ctx.machine, e.what()));
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

void build_bundled(std::string_view name, const std::filesystem::path& root) {
  auto data = platform::find_embedded(fmt::format("machines/{}.json", name));
  if (!data) {
    std::string known;
    for (const auto& m : bundled_machines()) known += (known.empty() ? "" : ", ") + m.name;
    throw UsageError(fmt::format("no bundled machine '{}' (known: {})", name, known));
  }
  build_from_spec(nlohmann::json::parse(*data), root);
}

}  // namespace pmukit::snapshot
