// pmukit -- machine-spec sections for Intel: discovery tables (in a BAR or behind an MSR) and MSRs.
#include <fmt/format.h>

#include "pmukit/snapshot/intel_table_writer.h"
#include "pmukit/util/error.h"
#include "spec_context.h"

namespace pmukit::snapshot::spec {

namespace {

unsigned access_type(const json& j, const std::string& where) {
  if (j.is_string()) {
    std::string a = j.get<std::string>();
    if (a == "msr") return 0;
    if (a == "mmio") return 1;
    if (a == "pci") return 2;
  }
  if (j.is_number()) return static_cast<unsigned>(j.get<int>());
  throw Error(fmt::format("{}: access must be msr, mmio, pci or a number", where));
}

std::array<std::uint64_t, 3> raw3(const json& j, const std::string& where) {
  return {num(j.at(0), where), num(j.at(1), where), num(j.at(2), where)};
}

// Zero-fills the registers a unit owns so the snapshot files cover them (reads past the end of
// an MSR file or dev/mem fail, as on hardware where nothing answers).
void touch_registers(Context& ctx, const IntelUnitRecord& u, int msr_cpu) {
  std::uint64_t n = u.num_regs;
  if (u.access == 0 && msr_cpu >= 0) {
    // MSR boxes occupy whole 16-MSR blocks (box control, controls, counters, status, filters).
    std::uint64_t last = std::max<std::uint64_t>(
        {u.box_ctl + u.ctl_offset + n, u.box_ctl + u.ctr_offset + n, u.box_ctl + u.status_offset + 1});
    for (std::uint64_t m = u.box_ctl & ~0xfull; m < ((last + 0xf) & ~0xfull); ++m)
      ctx.builder.set_msr(msr_cpu, static_cast<std::uint32_t>(m), 0);
  } else if (u.access == 1) {
    std::vector<std::uint8_t> zeros(0x100 + 8 * n, 0);
    ctx.builder.write_phys(u.box_ctl, zeros);
  }
}

void add_group(const json& g, const std::string& where, int socket, int msr_cpu, Context& ctx, IntelTableRecord& rec) {
  auto ids = id_list(g.at("ids"), where + " ids");
  unsigned access = access_type(g.at("access"), where);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    IntelUnitRecord u;
    u.type = static_cast<std::uint16_t>(num(g.at("type"), where));
    u.id = static_cast<std::uint16_t>(ids[k]);
    u.access = access;
    u.num_regs = static_cast<unsigned>(num_or(g, "num_regs", 4, where));
    u.ctl_offset = static_cast<unsigned>(num(g.at("ctl_offset"), where));
    u.ctr_offset = static_cast<unsigned>(num(g.at("ctr_offset"), where));
    u.bit_width = static_cast<unsigned>(num_or(g, "width", 48, where));
    u.status_offset = static_cast<unsigned>(num_or(g, "status_offset", 0, where));
    if (access == 2) {
      const json& list = g.at("pci");
      Bdf b = bdf(list.is_array() ? list.at(k) : list, where + " pci");
      std::uint64_t off = num(g.at("pci_offset"), where);
      u.box_ctl = encode_pci_box_ctl(b.domain, b.bus, b.devfn(), static_cast<std::uint16_t>(off));
      auto id = g.value("pci_id", "8086:0000");
      add_simple_device(ctx, b, static_cast<std::uint16_t>(std::stoul(id.substr(0, 4), nullptr, 16)),
                        static_cast<std::uint16_t>(std::stoul(id.substr(5, 4), nullptr, 16)), socket);
    } else if (g.at("box_ctl").is_array()) {
      u.box_ctl = num(g["box_ctl"].at(k), where + " box_ctl");
    } else {
      u.box_ctl = num(g["box_ctl"], where) + num_or(g, "id_stride", 0, where) * k;
    }
    touch_registers(ctx, u, msr_cpu);
    rec.units.push_back(u);
  }
}

}  // namespace

void write_msrs(const json& section, Context& ctx) {
  for (const auto& m : section)
    ctx.builder.set_msr(static_cast<int>(num(m.at("cpu"), "msrs cpu")),
                        static_cast<std::uint32_t>(num(m.at("msr"), "msrs msr")), num(m.at("value"), "msrs value"));
}

void write_intel_tables(const json& section, Context& ctx) {
  int index = 0;
  for (const auto& t : section) {
    std::string where = fmt::format("{}: intel table {}", ctx.machine, index++);
    IntelTableRecord rec;
    rec.stride_qwords = static_cast<unsigned>(num_or(t, "stride", 4, where));
    rec.access = t.contains("global_access") ? access_type(t["global_access"], where) : 0;
    rec.global_ctl = num_or(t, "global_ctl", 0x2ff0, where);
    rec.status_offset = static_cast<unsigned>(num_or(t, "status_offset", 0, where));
    rec.num_status = static_cast<unsigned>(num_or(t, "num_status", 0, where));
    if (t.contains("max_units")) rec.max_units = static_cast<unsigned>(num(t["max_units"], where));
    if (t.contains("raw_global")) rec.raw_global = raw3(t["raw_global"], where);
    int socket = 0, msr_cpu = -1;
    if (t.contains("device")) {
      Bdf dev = bdf(t["device"], where);
      auto it = ctx.device_node.find(dev);
      if (it == ctx.device_node.end())
        throw Error(fmt::format("{}: device {} is not in pci_devices", where, dev.str()));
      socket = std::max(it->second, 0);
      msr_cpu = ctx.socket_first_cpu.count(socket) ? ctx.socket_first_cpu[socket] : -1;
    } else {
      int cpu = static_cast<int>(num(t.at("msr").at("cpu"), where));
      for (const auto& [sd, first] : ctx.die_first_cpu)
        if (first == cpu) socket = sd.first;
      msr_cpu = cpu;
    }
    for (const auto& g : t.value("units", json::array())) add_group(g, where, socket, msr_cpu, ctx, rec);
    for (const auto& r : t.value("raw_units", json::array())) {
      IntelUnitRecord u;
      u.raw = raw3(r, where + " raw_units");
      rec.units.push_back(u);
    }
    auto bytes = encode_intel_table(rec);
    if (t.contains("device")) {
      ctx.builder.write_bar(bdf(t["device"], where), static_cast<int>(num_or(t, "bar", 0, where)), 0, bytes);
    } else {
      std::uint64_t base = num(t["msr"].at("base"), where);
      ctx.builder.write_phys(base, bytes);
      ctx.builder.set_msr(msr_cpu, static_cast<std::uint32_t>(num(t["msr"].at("msr"), where)), base);
    }
  }
}

}  // namespace pmukit::snapshot::spec
