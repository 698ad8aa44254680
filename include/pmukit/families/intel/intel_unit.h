// pmukit -- an Intel uncore PMON box as the discovery table gives it: its registers' addresses in
// one address space (MSR, MMIO or config space), and what platform data adds (fixed counter,
// filter register, counter constraints).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/families/intel/counter_constraints.h"
#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

enum class RegAccess { Msr, Mmio, PciConfig };
std::string_view access_name(RegAccess a);  // "MSR", "MMIO", "PCI"

// The discovery table's access type of a box reached this way (intel_regs.h: its register widths).
constexpr regs::intel::AccessType table_access_type(RegAccess a) {
  return a == RegAccess::Msr    ? regs::intel::AccessType::Msr
         : a == RegAccess::Mmio ? regs::intel::AccessType::Mmio
                                : regs::intel::AccessType::Pci;
}

// How a box is programmed: the discovery-table boxes (SPR and later: generic box control, no
// per-counter enable), or the boxes of the kernel's fixed tables before them (SNBEP box control
// bits, SNBEP_PMON_CTL_EN in every counter control; Linux uncore_snbep.c snbep/ivbep ops).
enum class BoxRules { Discovery, Snbep };

struct IntelUnit {
  std::uint16_t type = 0;
  std::uint16_t box_id = 0;
  RegAccess access = RegAccess::Msr;
  // MSR number, physical address, or config-space offset (PCI) of the box control.
  std::uint64_t box_ctl = 0;
  std::optional<Bdf> pci_device;           // PCI access: the function holding the registers
  std::vector<std::uint64_t> ctl;          // counter controls, same address space as box_ctl
  std::vector<std::uint64_t> ctr;          // counters
  std::optional<std::uint64_t> status;     // overflow status, when the table gives an offset
  std::optional<std::uint64_t> fixed_ctl;  // fixed counter (IMC DRAM clocks), from platform data
  std::optional<std::uint64_t> fixed_ctr;
  std::optional<std::uint64_t> filter;  // filter register (CHA TID filter MSR), from platform data
  std::uint64_t filter_mask = 0;        // bits of config<filter_config> it takes
  int filter_config = 1;
  int filter_enable_bit = -1;  // config bit an event sets to use the filter (SPR CHA tid_en); -1: any config1
  std::optional<std::uint64_t> filter_high;  // the register of the value's high 32 bits (SKX CHA FILTER1), if apart
  std::vector<platform::IntelFilterSelector> filter_selectors;  // the fields each event code uses (SKX CHA)
  // Which counters each event may use (the kernel's event constraint table for this box type, from
  // platform data); none: any event on any counter.
  std::optional<platform::CounterConstraints> counter_constraints;
  unsigned ctl_offset = 0;
  unsigned ctr_offset = 0;
  unsigned status_offset = 0;
  unsigned ctl_step = 0;
  unsigned ctr_step = 0;
  int msr_cpu = -1;                  // MSR access: a CPU of this unit's package and die
  std::size_t table = 0;             // index into Inventory::intel_tables
  unsigned table_index = 0;          // position in its table
  std::uint64_t raw[3] = {0, 0, 0};  // the record as read
  BoxRules rules = BoxRules::Discovery;

  static const Family& family();  // the family these details belong to
};

// The widths of the unit's registers (intel_regs.h).
constexpr regs::intel::Widths unit_widths(const IntelUnit& u) {
  return u.rules == BoxRules::Snbep ? regs::intel::snbep_widths(table_access_type(u.access))
                                    : regs::intel::widths(table_access_type(u.access));
}

// The box's filter register(s) from its type's platform data: box `box`'s MSR is `box_stride`
// after box 0's (SPR: SPR_C0_MSR_PMON_BOX_FILTER0 + HSWEP_CBO_MSR_OFFSET * box; SKX:
// HSWEP_C0_MSR_PMON_BOX_FILTER0 + HSWEP_CBO_MSR_OFFSET * box, FILTER1 the next MSR).
inline void set_filter(const platform::IntelFilter& f, unsigned box, IntelUnit& iu) {
  iu.filter = f.msr + std::uint64_t{f.box_stride} * box;
  if (f.high_offset) iu.filter_high = *iu.filter + f.high_offset;
  iu.filter_mask = f.mask;
  iu.filter_config = f.term_config;
  iu.filter_enable_bit = f.enable_bit;
  iu.filter_selectors = f.selectors;
}

}  // namespace pmukit::discovery
