// pmukit -- Intel discovery table encoder.
#include "pmukit/families/intel/intel_table_writer.h"

#include "pmukit/families/intel/intel_regs.h"

namespace pmukit::snapshot {

using namespace regs::intel;

namespace {
void put64(std::vector<std::uint8_t>& out, std::size_t at, std::uint64_t v) {
  if (out.size() < at + 8) out.resize(at + 8, 0);
  for (int i = 0; i < 8; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
}  // namespace

std::uint64_t encode_pci_box_ctl(std::uint32_t domain, std::uint8_t bus, std::uint8_t devfn, std::uint16_t offset) {
  return PciCtlDomain::put(domain) | PciCtlBus::put(bus) | PciCtlDevfn::put(devfn) | PciCtlOffset::put(offset);
}

std::vector<std::uint8_t> encode_intel_table(const IntelTableRecord& t) {
  const unsigned max_units = t.max_units.value_or(static_cast<unsigned>(t.units.size()));
  const std::size_t stride = std::size_t{t.stride_qwords} * 8;
  std::vector<std::uint8_t> out(std::max<std::size_t>(stride * (t.units.size() + 1), kRecordBytes), 0);
  std::array<std::uint64_t, 3> g{GlobalType::put(t.type) | GlobalStride::put(t.stride_qwords) |
                                     GlobalMaxUnits::put(max_units) | GlobalAccessType::put(t.access),
                                 t.global_ctl,
                                 GlobalStatusOffset::put(t.status_offset) | GlobalNumStatus::put(t.num_status)};
  if (t.raw_global) g = *t.raw_global;
  for (int q = 0; q < 3; ++q) put64(out, 8u * static_cast<unsigned>(q), g[static_cast<std::size_t>(q)]);
  for (std::size_t i = 0; i < t.units.size(); ++i) {
    const auto& u = t.units[i];
    std::array<std::uint64_t, 3> r{UnitNumRegs::put(u.num_regs) | UnitCtlOffset::put(u.ctl_offset) |
                                       UnitBitWidth::put(u.bit_width) | UnitCtrOffset::put(u.ctr_offset) |
                                       UnitStatusOffset::put(u.status_offset) | UnitAccessType::put(u.access),
                                   u.box_ctl, UnitBoxType::put(u.type) | UnitBoxId::put(u.id)};
    if (u.raw) r = *u.raw;
    for (int q = 0; q < 3; ++q)
      put64(out, (i + 1) * stride + 8u * static_cast<unsigned>(q), r[static_cast<std::size_t>(q)]);
  }
  return out;
}

}  // namespace pmukit::snapshot
