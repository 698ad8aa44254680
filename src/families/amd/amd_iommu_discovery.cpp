// pmukit -- AMD IOMMU performance counter discovery (Linux drivers/iommu/amd/init.c,
// arch/x86/events/amd/iommu.c; AMD IOMMU specification 48882).
//
// The kernel finds its IOMMUs in the ACPI IVRS table and names the PMU of the n-th one
// amd_iommu_<n> (init_one_iommu), n counting every IOMMU whether or not it has counters. pmukit
// takes the PCI functions of class 0806h with the IOMMU capability in PCI order, which is the IVHD
// order firmware lists them in on the machines whose tables we have seen. The MMIO base comes from
// the capability (Base Address Low/High, cap + 4 and + 8); its registers are read only when
// /proc/iomem shows the kernel's "amd_iommu" claim of exactly that region (region_proof.h), and
// the counter banks only when the Extended Feature Register says PCSup, as init_iommu_perf_ctr.
#include "pmukit/families/amd/amd_iommu_discovery.h"

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/region_proof.h"
#include "pmukit/discovery/unit_helpers.h"
#include "pmukit/families/amd/amd_iommu_regs.h"
#include "pmukit/families/amd/amd_iommu_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::discovery {

namespace {

namespace r = regs::amd_iommu;
constexpr const char* kKind = "amd_iommu";
constexpr const char* kIomemName = "amd_iommu";  // iommu_map_mmio_space: request_mem_region(..., "amd_iommu")

const pci::Capability* iommu_cap(const pci::Device& d) {
  for (const auto& c : d.caps)
    if (c.kind == pci::CapKind::Standard && c.id == r::kCapId) return &c;
  return nullptr;
}

// The capability's header and base address registers; false (with a warning) when they cannot
// be read or the capability is not an IOMMU's.
bool read_cap(Machine& machine, const pci::Device& d, const pci::Capability& c, AmdIommuUnit& u, Inventory& inv) {
  auto& cfg = machine.pci().config(d.bdf);
  auto header = cfg.read32(c.offset + static_cast<unsigned>(r::CapHeader::offset));
  auto low = cfg.read32(c.offset + static_cast<unsigned>(r::BaseLow::offset));
  auto high = cfg.read32(c.offset + static_cast<unsigned>(r::BaseHigh::offset));
  if (!header || !low || !high) {
    inv.warnings.push_back(fmt::format("{}: IOMMU capability @{:#x} cannot be read whole (config space too short)",
                                       d.bdf.str(), c.offset));
    return false;
  }
  if (r::CapHeader::CapType::get(RegValue<r::CapHeader>{*header}) != r::kCapTypeIommu) {
    inv.warnings.push_back(fmt::format("{}: class 0806 function with capability 0Fh @{:#x} of type {} (an IOMMU's is "
                                       "3, AMD IOMMU specification 48882): not an AMD IOMMU",
                                       d.bdf.str(), c.offset,
                                       r::CapHeader::CapType::get(RegValue<r::CapHeader>{*header})));
    return false;
  }
  u.function = d.bdf;
  u.vendor = d.vendor_id;
  u.device = d.device_id;
  u.cap_offset = c.offset;
  u.cap_header = *header;
  const RegValue<r::BaseLow> lo{*low};
  u.base_enabled = r::BaseLow::Enable::get(lo) != 0;
  u.mmio_base = std::uint64_t{*high} << 32 | r::BaseLow::Address::get(lo) << r::BaseLow::Address::lo;
  return true;
}

PmuUnit pmu_unit_of(const pci::Device& d, unsigned index, const Topology& topo) {
  PmuUnit pu;
  pu.name = fmt::format("amd_iommu_{}", index);  // init_one_iommu: "amd_iommu_%u"
  pu.type_name = "iommu";
  pu.pmu_kind = kKind;
  pu.counter_width = r::kCounterWidth;
  if (d.numa_node >= 0)
    if (auto s = topo.socket_of_node(d.numa_node)) pu.socket = *s;
  for (auto& f : filters_of(platform::Database::builtin().pmu_kind(kKind)))
    if (f.name != "csource") pu.filters.push_back(std::move(f));  // the event, not a filter
  return pu;
}

// Why [base, base + bytes) is not the IOMMU's by the kernel's own claim ("amd_iommu" in
// /proc/iomem, region_proof.h), or nullopt when it is.
std::optional<std::string> refusal(Machine& machine, const acpi::Iomem& iomem, const AmdIommuUnit& u,
                                   std::uint64_t bytes) {
  const std::string file = machine.param("iomem.path").string();
  if (!iomem.readable) return fmt::format("{} cannot be read", file);
  if (iomem.addresses_hidden)
    return fmt::format("{} shows addresses only to root (reads 0-0): run as root to read the counter configuration",
                       file);
  return platform_region_refusal(machine, iomem, {kIomemName}, u.mmio_base, bytes);
}

// [base + offset, + bytes) mapped read-only, or null with a note saying why it cannot be.
std::unique_ptr<RegisterWindow> map(Machine& machine, AmdIommuUnit& u, PmuUnit& pu, std::uint64_t offset,
                                    std::uint64_t bytes) {
  try {
    return machine.memory().map(u.mmio_base + offset, bytes, false);
  } catch (const Error& e) {
    u.region_source = "not mapped";
    pu.notes.push_back(fmt::format("the MMIO registers cannot be read: {}", e.what()));
    return nullptr;
  }
}

void not_proven(AmdIommuUnit& u, PmuUnit& pu, std::uint64_t bytes, const std::string& why) {
  u.region_source = "not proven";
  pu.notes.push_back(
      fmt::format("MMIO region {:#x}+{:#x} not proven the IOMMU's, not read: {}", u.mmio_base, bytes, why));
}

// The Extended Feature Register (in the region Linux claims for every IOMMU) and, when it says
// PCSup, the counter configuration (in the region it claims only then), as init_iommu_perf_ctr
// reads them. Nothing is read from a range /proc/iomem does not give the IOMMU.
void read_counters(Machine& machine, const acpi::Iomem& iomem, AmdIommuUnit& u, PmuUnit& pu) {
  if (auto why = refusal(machine, iomem, u, r::kRegionSizeWithoutCounters))
    return not_proven(u, pu, r::kRegionSizeWithoutCounters, *why);
  auto w = map(machine, u, pu, 0, r::ExtFeatures::offset + 8);
  if (!w) return;
  u.ext_features = std::uint64_t{w->read32(r::ExtFeatures::offset + 4)} << 32 | w->read32(r::ExtFeatures::offset);
  u.pc_supported = r::ExtFeatures::PcSup::get(RegValue<r::ExtFeatures>{*u.ext_features}) != 0;
  u.region_source = fmt::format("{} ({})", machine.param("iomem.path").string(), kIomemName);
  if (!u.pc_supported)
    return pu.notes.push_back(
        fmt::format("Extended Feature Register {:#x}: PCSup (bit 9) clear, no performance counters", *u.ext_features));
  if (auto why = refusal(machine, iomem, u, r::kRegionSize)) {
    for (const auto& range : iomem.named(kIomemName))
      if (range.start == u.mmio_base && range.bytes() == r::kRegionSizeWithoutCounters)
        *why += "; the kernel claimed 0x4000 bytes only: firmware's IVHD says the IOMMU has no counters "
                "(init_iommu_one)";
    return not_proven(u, pu, r::kRegionSize, *why);
  }
  auto conf_page = map(machine, u, pu, r::CntrConf::offset, 4);
  if (!conf_page) return;
  u.region_proven = true;
  u.cntr_conf = conf_page->read32(0);
  const RegValue<r::CntrConf> conf{*u.cntr_conf};
  u.banks = static_cast<unsigned>(r::CntrConf::Banks::get(conf));
  u.counters = static_cast<unsigned>(r::CntrConf::Counters::get(conf));
  if (!u.banks || !u.counters)
    pu.notes.push_back(fmt::format("counter configuration {:#x} reports {} banks of {} counters: none to program "
                                   "(Linux registers no PMU then)",
                                   *u.cntr_conf, u.banks, u.counters));
  else
    pu.num_counters = u.banks * u.counters;
}

}  // namespace

unsigned discover_amd_iommus(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topo,
                             Inventory& inv) {
  std::optional<acpi::Iomem> iomem;
  unsigned found = 0;
  for (const auto& d : devices) {
    if (d.class_code >> 8 != r::kClassIommu) continue;
    const pci::Capability* c = iommu_cap(d);
    if (!c) continue;  // another kind of IOMMU: the capability is AMD's
    AmdIommuUnit u;
    if (!read_cap(machine, d, *c, u, inv)) continue;
    PmuUnit pu = pmu_unit_of(d, found, topo);
    if (!u.base_enabled) {
      u.region_source = "base address not enabled";
      pu.notes.push_back(fmt::format("IOMMU Base Address register @{:#x} not enabled (bit 0 clear): no MMIO region",
                                     c->offset + r::BaseLow::offset));
      u.mmio_base = 0;
    } else {
      if (!iomem) iomem = acpi::read_iomem(machine);
      read_counters(machine, *iomem, u, pu);
    }
    pu.set_detail(std::move(u));
    inv.units.push_back(std::move(pu));
    ++found;
  }
  return found;
}

}  // namespace pmukit::discovery
