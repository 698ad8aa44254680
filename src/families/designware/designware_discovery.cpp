// pmukit -- DesignWare RAS DES discovery (dwc_pcie_pmu.c: dwc_pcie_des_cap(), name
// "dwc_rootport_%x" of sbdf = domain << 16 | bus << 8 | devfn).
#include "pmukit/families/designware/designware_discovery.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/discovery/unit_helpers.h"
#include "pmukit/families/designware/designware_regs.h"
#include "pmukit/families/designware/designware_unit.h"
#include "pmukit/pci/pci_regs.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/bits.h"

namespace pmukit::discovery {

namespace {

// PCIe Link Capabilities (Express cap + 0x0c), Maximum Link Width [9:4]: the lanes the lane
// selector of EVENT_CNT_CTL can address.
unsigned max_link_width(Machine& machine, const pci::Device& d) {
  for (const auto& c : d.caps) {
    if (c.kind != pci::CapKind::Standard || c.id != pci::regs::kCapIdPcie) continue;
    auto lnkcap = machine.pci().config(d.bdf).read32(c.offset + 0x0cu);
    return lnkcap ? static_cast<unsigned>(bits(*lnkcap, 9, 4)) : 0;
  }
  return 0;
}

// Whether this VSEC is a RAS DES capability Linux dwc_pcie_pmu would claim; warns when it looks
// like one but is not.
bool is_ras_des(const platform::DwcRasDes& dwc, const pci::Device& d, const pci::Capability& c,
                const std::string& where, Inventory& inv) {
  if (!dwc.vendors.count(d.vendor_id)) {
    // Same ID and revision on another vendor (Tegra194 10de:1ad0 is DesignWare-based) is not
    // claimed by Linux either; say so, since it looks like RAS DES.
    if (c.vsec->rev == dwc.vsec_rev)
      inv.warnings.push_back(fmt::format("{}: looks like DesignWare RAS DES but vendor {:04x} is not one Linux "
                                         "dwc_pcie_pmu accepts: not used",
                                         where, d.vendor_id));
    return false;
  }
  if (c.vsec->rev != dwc.vsec_rev) {
    inv.warnings.push_back(
        fmt::format("{}: not RAS DES: revision {} (RAS DES is revision {})", where, c.vsec->rev, dwc.vsec_rev));
    return false;
  }
  return true;
}

DwcUnit unit_of(Machine& machine, const platform::DwcRasDes& dwc, const pci::Device& d, const pci::Capability& c) {
  DwcUnit u;
  u.root_port = d.bdf;
  u.vendor = d.vendor_id;
  u.vendor_name = dwc.vendors.at(d.vendor_id);
  u.device = d.device_id;
  u.vsec_offset = c.offset;
  u.vsec_length = c.vsec->length;
  u.vsec_rev = c.vsec->rev;
  u.sbdf = d.bdf.domain << 16 | static_cast<std::uint32_t>(d.bdf.rid());
  u.lanes = max_link_width(machine, d);
  for (const auto& r : regs::dwc::kRegisters)
    u.registers.push_back({std::string(r.name), static_cast<std::uint16_t>(c.offset + r.offset)});
  u.event_groups = dwc.event_groups;
  return u;
}

PmuUnit pmu_unit_of(const platform::DwcRasDes& dwc, const pci::Device& d, const DwcUnit& u, const Topology& topo) {
  const auto& db = platform::Database::builtin();
  PmuUnit pu;
  // bdf = segment << 24 | bus << 16 | device << 8 | function: the Anolis OS driver's naming
  // (DWC_PCIE_CREATE_BDF; the Alibaba Yitian 710 PCIe PMU guide's pcie_bdf_200 is 0000:00:02.0).
  const std::uint64_t bdf =
      std::uint64_t{d.bdf.domain} << 24 | unsigned{d.bdf.bus} << 16 | unsigned{d.bdf.dev} << 8 | d.bdf.fn;
  const std::map<std::string, std::string> names{{"sbdf", fmt::format("{:x}", u.sbdf)},
                                                 {"bdf", fmt::format("{:x}", bdf)}};
  pu.name = platform::expand_pattern(dwc.name_pattern, names);
  for (const auto& a : dwc.aliases)
    pu.aliases.push_back({platform::expand_pattern(a.pattern, names), a.hardware_units});
  pu.type_name = "rasdes";
  pu.pmu_kind = dwc.pmu_kind;
  if (d.numa_node >= 0)
    if (auto s = topo.socket_of_node(d.numa_node)) pu.socket = *s;
  // Lane event counters (regs::dwc::lane_counter_width) and one 64-bit time-based counter (dwc_pcie_pmu.c).
  pu.num_counters = 2;
  pu.counter_width = 64;
  pu.filters = filters_of(db.pmu_kind(dwc.pmu_kind));
  pu.notes.push_back("lane event counters (32-bit; 4-bit in groups 0 and 4, 8-bit in groups 1-3) and one time-based "
                     "counter (64-bit, read hi-lo-hi); no overflow interrupt");
  return pu;
}

}  // namespace

unsigned discover_dwc_rasdes(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topo,
                             Inventory& inv) {
  // The SoC data is parsed on first use: not asked for where no root port has a VSEC at all.
  auto root_port_with_vsec = [](const pci::Device& d) {
    return d.is_root_port() && std::any_of(d.caps.begin(), d.caps.end(), [](const auto& c) { return c.vsec; });
  };
  if (std::none_of(devices.begin(), devices.end(), root_port_with_vsec)) return 0;
  const auto& db = platform::Database::builtin();
  const auto& soc = db.soc(platform::SocSection::DesignWare);
  if (!soc.dwc) return 0;
  const auto& dwc = *soc.dwc;
  unsigned found = 0;
  for (const auto& d : devices) {
    if (!d.is_root_port()) continue;
    for (const auto& c : d.caps) {
      if (!c.vsec || c.vsec->id != dwc.vsec_id) continue;
      std::string where = fmt::format("{} VSEC @{:#x} (ID {:#x} rev {} len {:#x})", d.bdf.str(), c.offset, c.vsec->id,
                                      c.vsec->rev, c.vsec->length);
      if (!is_ras_des(dwc, d, c, where, inv)) continue;
      auto u = unit_of(machine, dwc, d, c);
      auto pu = pmu_unit_of(dwc, d, u, topo);
      if (c.vsec->length < regs::dwc::kSpan)
        inv.warnings.push_back(fmt::format("{}: length {:#x} does not cover the counter registers (+{:#04x}..+{:#04x})",
                                           where, c.vsec->length, regs::dwc::EventCntCtl::offset,
                                           regs::dwc::kSpan - 1));
      pu.set_detail(std::move(u));
      inv.units.push_back(std::move(pu));
      ++found;
      break;  // the kernel takes the first RAS DES VSEC of a root port
    }
  }
  return found;
}

}  // namespace pmukit::discovery
