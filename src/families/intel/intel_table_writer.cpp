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
  return (PciCtl::Domain::put(domain) | PciCtl::Bus::put(bus) | PciCtl::Devfn::put(devfn) | PciCtl::Offset::put(offset))
      .raw;
}

std::vector<std::uint8_t> encode_intel_table(const IntelTableRecord& t) {
  const unsigned max_units = t.max_units.value_or(static_cast<unsigned>(t.units.size()));
  const std::size_t stride = std::size_t{t.stride_qwords} * 8;
  std::vector<std::uint8_t> out(std::max<std::size_t>(stride * (t.units.size() + 1), kRecordBytes), 0);
  using G1 = GlobalTable1;
  using G3 = GlobalTable3;
  std::array<std::uint64_t, 3> g{(G1::Type::put(t.type) | G1::Stride::put(t.stride_qwords) |
                                  G1::MaxUnits::put(max_units) | G1::AccessType::put(t.access))
                                     .raw,
                                 t.global_ctl,
                                 (G3::StatusOffset::put(t.status_offset) | G3::NumStatus::put(t.num_status)).raw};
  if (t.raw_global) g = *t.raw_global;
  for (int q = 0; q < 3; ++q) put64(out, 8u * static_cast<unsigned>(q), g[static_cast<std::size_t>(q)]);
  for (std::size_t i = 0; i < t.units.size(); ++i) {
    const auto& u = t.units[i];
    using U1 = UnitTable1;
    using U3 = UnitTable3;
    std::array<std::uint64_t, 3> r{(U1::NumRegs::put(u.num_regs) | U1::CtlOffset::put(u.ctl_offset) |
                                    U1::BitWidth::put(u.bit_width) | U1::CtrOffset::put(u.ctr_offset) |
                                    U1::StatusOffset::put(u.status_offset) | U1::AccessType::put(u.access))
                                       .raw,
                                   u.box_ctl, (U3::BoxType::put(u.type) | U3::BoxId::put(u.id)).raw};
    if (u.raw) r = *u.raw;
    for (int q = 0; q < 3; ++q)
      put64(out, (i + 1) * stride + 8u * static_cast<unsigned>(q), r[static_cast<std::size_t>(q)]);
  }
  return out;
}

}  // namespace pmukit::snapshot
