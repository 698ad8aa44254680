// pmukit -- a CoreSight PMU block as the APMT and its ID registers describe it, and the backend
// (NVIDIA, Ampere, generic) Linux would bind to it.
#pragma once

#include "pmukit/discovery/inventory.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include <cstdint>
#include <string>
#include <vector>

namespace pmukit::discovery {

struct CoreSightUnit {
  std::uint64_t base0 = 0;  // page 0 (configuration)
  std::uint64_t base1 = 0;  // page 1 (counters, overflow); equals base0 without DUAL_PAGE
  bool dual_page = false;
  bool atomic64 = false;  // APMT ATOMIC flag: 64-bit single-copy atomic accesses
  RegValue<regs::coresight::Pmcfgr> pmcfgr;
  RegValue<regs::coresight::Pmcr> pmcr;
  RegValue<regs::coresight::Pmiidr> pmiidr;  // the effective identity (pmiidr_source)
  std::string pmiidr_source;                 // "PMIIDR", "PMPIDR", "APMT impl_id"
  std::string implementer;                   // "NVIDIA", "Ampere", "Arm"...
  std::string product;                       // "Grace SCF", "Tegra410 PCIE", "generic CoreSight PMU"
  std::string backend;                       // platform PMU kind used for events and filters
  bool has_cycle_counter = false;
  unsigned cycle_counter_index = 31;
  // APMT node
  std::uint32_t apmt_id = 0;
  std::uint8_t apmt_type = 0;
  std::uint8_t apmt_flags = 0;
  std::uint64_t apmt_inst_primary = 0;
  std::uint32_t apmt_inst_secondary = 0;
  std::uint32_t apmt_proc_affinity = 0;
  std::uint32_t apmt_impl_id = 0;
  int rc = -1;                                        // Tegra410 PCIE/PCIE-TGT: root complex number
  std::string rc_source;                              // where rc came from ("" when unknown)
  RegValue<regs::coresight::Pmiidr> pmiidr_register;  // PMIIDR as read (pmiidr is the effective value)
  regs::coresight::PeripheralIds pmpidr;              // PMPIDR0..4
  std::string kernel_module;                          // backend Linux would bind: nvidia_cspmu, ampere_cspmu, arm_cspmu
  std::string platform_device;                        // arm-cs-arch-pmu.<APMT id>
  std::string acpi_device;                            // ACPI-type nodes: "<HID>:<UID>" from the APMT node
  std::vector<int> cpus;                              // associated CPUs (APMT processor affinity)
  int numa_node = -1;                                 // node of the first associated CPU: the kernel's name number
  std::string mapped_through;                         // file page 0 was read through
  std::string kernel_pmu;                             // the name the running kernel registered, "" when none

  static const Family& family();  // the family these details belong to
};

}  // namespace pmukit::discovery
