// pmukit -- the machine spec's "intel_tables" section: discovery tables (in a BAR or behind an MSR);
// "intel_mmio": the ranges of MMIO boxes found without a table.
#include "intel_spec.h"

#include <fmt/format.h>

#include "pmukit/families/intel/intel_table_writer.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"

namespace pmukit::snapshot::spec {

namespace {

// A table lists at most 1023 units (its max_units field has 10 bits: discovery regs).
constexpr std::size_t kMaxUnitsPerTable = 1023;

unsigned access_type(const json& j, const std::string& where) {
  if (j.is_string()) {
    std::string a = j.get<std::string>();
    if (a == "msr") return 0;
    if (a == "mmio") return 1;
    if (a == "pci") return 2;
  }
  if (j.is_number_unsigned() && j.get<std::uint64_t>() <= 3) return static_cast<unsigned>(j.get<std::uint64_t>());
  expected(where, "msr, mmio, pci or a number from 0 to 3", j);
}

std::array<std::uint64_t, 3> raw3(const json& j, const std::string& where) {
  return {num(item(j, 0, where), index_path(where, 0)), num(item(j, 1, where), index_path(where, 1)),
          num(item(j, 2, where), index_path(where, 2))};
}

// Zero-fills the registers a unit owns so the snapshot files cover them (reads past the end of
// an MSR file or dev/mem fail, as on hardware where nothing answers).
void touch_registers(Context& ctx, const IntelUnitRecord& u, int msr_cpu, const std::string& where) {
  std::uint64_t n = u.num_regs;
  if (u.access == 0 && msr_cpu >= 0) {
    if (u.box_ctl > 0xffffffffull - 0x200)
      throw SpecError(fmt::format("{}: MSR box control {:#x} is beyond the 32-bit MSR space", where, u.box_ctl));
    // MSR boxes occupy whole 16-MSR blocks (box control, controls, counters, status, filters).
    std::uint64_t last = std::max<std::uint64_t>(
        {u.box_ctl + u.ctl_offset + n, u.box_ctl + u.ctr_offset + n, u.box_ctl + u.status_offset + 1});
    for (std::uint64_t m = u.box_ctl & ~0xfull; m < ((last + 0xf) & ~0xfull); ++m)
      ctx.builder.set_msr(msr_cpu, static_cast<std::uint32_t>(m), 0);
  } else if (u.access == 1) {
    if (u.box_ctl > (1ull << 52))
      throw SpecError(fmt::format("{}: box control {:#x} is outside the physical address space", where, u.box_ctl));
    std::vector<std::uint8_t> zeros(0x100 + 8 * n, 0);
    ctx.builder.write_phys(u.box_ctl, zeros);
  }
}

void add_group(const json& g, const std::string& where, int socket, int msr_cpu, Context& ctx, IntelTableRecord& rec) {
  auto ids = id_list(need(g, "ids", where), kMaxUnitsPerTable, key_path(where, "ids"));
  if (rec.units.size() + ids.size() > kMaxUnitsPerTable)
    throw SpecError(fmt::format("{}: more than {} units in one table", where, kMaxUnitsPerTable));
  unsigned access = access_type(need(g, "access", where), key_path(where, "access"));
  for (std::size_t k = 0; k < ids.size(); ++k) {
    IntelUnitRecord u;
    u.type = static_cast<std::uint16_t>(num_in(need(g, "type", where), 0xffff, key_path(where, "type")));
    u.id = static_cast<std::uint16_t>(ids[k]);
    u.access = access;
    u.num_regs = static_cast<unsigned>(num_or_in(g, "num_regs", 4, 0xff, where));
    u.ctl_offset = static_cast<unsigned>(num_in(need(g, "ctl_offset", where), 0xff, key_path(where, "ctl_offset")));
    u.ctr_offset = static_cast<unsigned>(num_in(need(g, "ctr_offset", where), 0xff, key_path(where, "ctr_offset")));
    u.bit_width = static_cast<unsigned>(num_or_in(g, "width", 48, 0xff, where));
    u.status_offset = static_cast<unsigned>(num_or_in(g, "status_offset", 0, 0xff, where));
    if (access == 2) {
      const json& list = need(g, "pci", where);
      Bdf b = bdf(list.is_array() ? item(list, k, key_path(where, "pci")) : list, key_path(where, "pci"));
      std::uint64_t off = num_in(need(g, "pci_offset", where), 0xfff, key_path(where, "pci_offset"));
      u.box_ctl = encode_pci_box_ctl(b.domain, b.bus, b.devfn(), static_cast<std::uint16_t>(off));
      auto [vendor, device] = opt(g, "pci_id", where) ? pci_id(g["pci_id"], key_path(where, "pci_id"))
                                                      : std::pair<std::uint16_t, std::uint16_t>{0x8086, 0};
      add_simple_device(ctx, b, vendor, device, socket);
    } else if (const json& box = need(g, "box_ctl", where); box.is_array()) {
      u.box_ctl = num(item(box, k, key_path(where, "box_ctl")), index_path(key_path(where, "box_ctl"), k));
    } else {
      std::uint64_t stride = num_or(g, "id_stride", 0, where), base = num(box, key_path(where, "box_ctl"));
      if (stride && k > (UINT64_MAX - base) / stride)
        throw SpecError(fmt::format("{}: box_ctl + id_stride x {} overflows", where, k));
      u.box_ctl = base + stride * k;
    }
    touch_registers(ctx, u, msr_cpu, where);
    rec.units.push_back(u);
  }
}

}  // namespace

void write_intel_tables(const json& section, Context& ctx) {
  const std::string sw = "intel_tables";
  if (!section.is_array()) expected(sw, "an array", section);
  for (std::size_t index = 0; index < section.size(); ++index) {
    const json& t = section[index];
    std::string where = index_path(sw, index);
    IntelTableRecord rec;
    rec.stride_qwords = static_cast<unsigned>(num_or_in(t, "stride", 4, 0xff, where));
    rec.access = opt(t, "global_access", where) ? access_type(t["global_access"], key_path(where, "global_access")) : 0;
    rec.global_ctl = num_or(t, "global_ctl", 0x2ff0, where);
    rec.status_offset = static_cast<unsigned>(num_or_in(t, "status_offset", 0, 0xff, where));
    rec.num_status = static_cast<unsigned>(num_or_in(t, "num_status", 0, 0xffff, where));
    if (opt(t, "max_units", where))
      rec.max_units = static_cast<unsigned>(num_in(t["max_units"], 0x3ff, key_path(where, "max_units")));
    if (opt(t, "raw_global", where)) rec.raw_global = raw3(t["raw_global"], key_path(where, "raw_global"));
    int socket = 0, msr_cpu = -1;
    if (const json* device = opt(t, "device", where)) {
      Bdf dev = bdf(*device, key_path(where, "device"));
      auto it = ctx.device_node.find(dev);
      if (it == ctx.device_node.end())
        throw SpecError(fmt::format("{}.device: {} is not in pci_devices", where, dev.str()));
      socket = std::max(it->second, 0);
      msr_cpu = ctx.socket_first_cpu.count(socket) ? ctx.socket_first_cpu[socket] : -1;
    } else {
      std::string mw = key_path(where, "msr");
      int cpu =
          static_cast<int>(num_in(need(need(t, "msr", where), "cpu", mw), limits::kCpus - 1, key_path(mw, "cpu")));
      for (const auto& [sd, first] : ctx.die_first_cpu)
        if (first == cpu) socket = sd.first;
      msr_cpu = cpu;
    }
    const json& units = list_or_empty(t, "units", where);
    for (std::size_t i = 0; i < units.size(); ++i)
      add_group(units[i], index_path(key_path(where, "units"), i), socket, msr_cpu, ctx, rec);
    const json& raw = list_or_empty(t, "raw_units", where);
    if (rec.units.size() + raw.size() > kMaxUnitsPerTable)
      throw SpecError(fmt::format("{}: more than {} units in one table", where, kMaxUnitsPerTable));
    for (std::size_t i = 0; i < raw.size(); ++i) {
      IntelUnitRecord u;
      u.raw = raw3(raw[i], index_path(key_path(where, "raw_units"), i));
      rec.units.push_back(u);
    }
    auto bytes = encode_intel_table(rec);
    if (const json* device = opt(t, "device", where)) {
      ctx.builder.write_bar(bdf(*device, key_path(where, "device")), static_cast<int>(num_or_in(t, "bar", 0, 5, where)),
                            0, bytes);
    } else {
      std::string mw = key_path(where, "msr");
      const json& m = t["msr"];
      std::uint64_t base = num_in(need(m, "base", mw), (1ull << 52) - 1, key_path(mw, "base"));
      ctx.builder.write_phys(base, bytes);
      ctx.builder.set_msr(
          msr_cpu, static_cast<std::uint32_t>(num_in(need(m, "msr", mw), 0xffffffff, key_path(mw, "msr"))), base);
    }
  }
}

void write_intel_mmio(const json& section, Context& ctx) {
  const std::string sw = "intel_mmio";
  if (!section.is_array()) expected(sw, "an array", section);
  for (std::size_t i = 0; i < section.size(); ++i) {
    const std::string where = index_path(sw, i);
    const std::uint64_t base = num_in(need(section[i], "base", where), (1ull << 52) - 1, key_path(where, "base"));
    const std::uint64_t size = num_in(need(section[i], "size", where), 0x100000, key_path(where, "size"));
    if (size == 0 || (1ull << 52) - base < size)
      throw SpecError(fmt::format("{}: {:#x}+{:#x} is not a range of the physical address space", where, base, size));
    ctx.builder.write_phys(base, std::vector<std::uint8_t>(size, 0));
  }
}

}  // namespace pmukit::snapshot::spec
