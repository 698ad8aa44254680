// pmukit -- the uniform inventory of PMU units every discoverer produces: Intel PMON boxes,
// Arm CoreSight PMU blocks (via ACPI APMT), DesignWare PCIe RAS DES root ports, the Tegra410
// blocks outside CoreSight and Arm CMN meshes. Downstream code (programming, perf mapping,
// output) never re-checks the CPU model: everything it needs is here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/discovery/cmn_unit.h"
#include "pmukit/platform/counter_constraints.h"

namespace pmukit::discovery {

enum class Family { IntelUncore, CoreSight, DwcRasDes, T410C2c, T410CmemLatency, Cmn };
enum class RegAccess { Msr, Mmio, PciConfig };

std::string_view family_name(Family f);     // "intel-uncore", "coresight", ...
std::string_view access_name(RegAccess a);  // "MSR", "MMIO", "PCI"

// A filter the unit accepts, as a perf format term ("root_port", "config1:0-9").
struct FilterField {
  std::string name;
  std::string format;
  std::string help;
};

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
};

struct CoreSightUnit {
  std::uint64_t base0 = 0;  // page 0 (configuration)
  std::uint64_t base1 = 0;  // page 1 (counters, overflow); equals base0 without DUAL_PAGE
  bool dual_page = false;
  bool atomic64 = false;  // APMT ATOMIC flag: 64-bit single-copy atomic accesses
  std::uint32_t pmcfgr = 0, pmcr = 0, pmiidr = 0;
  std::string pmiidr_source;  // "PMIIDR", "PMPIDR", "APMT impl_id"
  std::string implementer;    // "NVIDIA", "Ampere", "Arm"...
  std::string product;        // "Grace SCF", "Tegra410 PCIE", "generic CoreSight PMU"
  std::string backend;        // platform PMU kind used for events and filters
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
  int rc = -1;                                // Tegra410 PCIE/PCIE-TGT: root complex number
  std::string rc_source;                      // where rc came from ("" when unknown)
  std::uint32_t pmiidr_register = 0;          // PMIIDR as read (pmiidr is the effective value)
  std::uint32_t pmpidr[5] = {0, 0, 0, 0, 0};  // PMPIDR0..4
  std::string kernel_module;                  // backend Linux would bind: nvidia_cspmu, ampere_cspmu, arm_cspmu
  std::string platform_device;                // arm-cs-arch-pmu.<APMT id>
  std::string acpi_device;                    // ACPI-type nodes: "<HID>:<UID>" from the APMT node
  std::vector<int> cpus;                      // associated CPUs (APMT processor affinity)
  int numa_node = -1;                         // node of the first associated CPU: the kernel's name number
  std::string mapped_through;                 // file page 0 was read through
  std::string kernel_pmu;                     // the name the running kernel registered, "" when none
};

struct DwcRegister {
  std::string name;
  std::uint16_t offset = 0;  // absolute config-space offset (VSEC start + register offset)
};

struct DwcUnit {
  Bdf root_port;
  std::uint16_t vendor = 0;
  std::string vendor_name;
  std::uint16_t device = 0;
  std::uint16_t vsec_offset = 0;  // RAS DES VSEC in config space; registers are relative to it
  std::uint16_t vsec_length = 0;
  std::uint8_t vsec_rev = 0;
  std::uint32_t sbdf = 0;  // domain << 16 | bus << 8 | devfn
  unsigned lanes = 0;      // Link Capabilities max width, 0 when unreadable
  std::vector<DwcRegister> registers;
  std::vector<std::string> event_groups;
};

struct T410Unit {
  std::string hid;                            // NVDA2020..NVDA2023
  std::string interface;                      // "NVLink-C2C", "CMEM latency", ...
  std::string acpi_device;                    // "NVDA2020:00" (sysfs name)
  std::string uid;                            // _UID: the socket
  std::string acpi_path;                      // where it was found
  std::vector<std::uint64_t> instance_bases;  // MEM resources 0..N-1
  std::optional<std::uint64_t> broadcast_base;
  std::uint64_t region_size = 0;
  std::string peer;                                              // NVLink-C2C: "cpu", "gpu", "cxl memory"...
  bool exposed = false;                                          // resources readable by userspace
  unsigned ranges_listed = 0;                                    // /proc/iomem ranges under the device's name
  std::string resources_source;                                  // "/proc/iomem (NVDA2020:00)" or why there is none
  std::vector<std::pair<std::string, std::uint32_t>> registers;  // per-instance offsets
};

// Another kernel's name for a unit, and how that kernel reports counts: pmu-raw counts an event
// named through the alias the way that kernel would, so its users' formulas stay right.
struct UnitAlias {
  std::string name;
  bool hardware_units = false;  // counts as the hardware gives them (no x16 for DesignWare payload)
};

struct PmuUnit {
  Family family = Family::IntelUncore;
  std::string name;                // the kernel PMU name: uncore_imc_3, nvidia_scf_pmu_0, dwc_rootport_3018
  std::vector<UnitAlias> aliases;  // names other kernels give it (Anolis OS: pcie_bdf_200), for -e
  std::string type_name;           // "imc", "scf", "pcie", "rasdes"
  std::string pmu_kind;            // platform PMU kind: formats and named events
  int socket = -1;
  int die = -1;
  unsigned num_counters = 0;
  unsigned counter_width = 0;
  std::vector<FilterField> filters;
  std::vector<std::string> notes;  // quirks and flags shown beside the unit
  // Units that claim one of this unit's registers (discovery/unit_overlap.h): never programmed
  // together with it.
  std::vector<std::string> shares_registers_with;
  std::variant<IntelUnit, CoreSightUnit, DwcUnit, T410Unit, CmnUnit> detail;

  const UnitAlias* alias(std::string_view pmu_name) const {
    for (const auto& a : aliases)
      if (a.name == pmu_name) return &a;
    return nullptr;
  }

  template <class T>
  const T* as() const {
    return std::get_if<T>(&detail);
  }
};

// Which NVIDIA PCIe PMU instance (socket, RC) and root-port filter bit a root port maps to.
struct RootPortMap {
  Bdf device;  // the function carrying the mapping (a root port on real systems)
  bool is_root_port = true;
  std::uint16_t device_id = 0;
  std::string scheme;  // "tegra410" (RC-mapping DVSEC) or "grace" (derived from the domain)
  std::string source;  // "DVSEC 10de:0004 @0x200" or "derived from PCI domain 0x0008 (Grace guide)"
  std::optional<std::uint16_t> dvsec_offset;
  int bus = -1, segment = -1;  // DVSEC bytes +0xc, +0xd (Tegra410 only)
  int rp = -1, rc = -1, socket = -1;
  std::vector<std::string> pmus;  // kernel PMUs that see traffic from below this root port
};

struct ApmtSummary {
  std::string source;
  unsigned revision = 0;
  unsigned nodes = 0;
  bool checksum_ok = true;
  std::string oem_id, oem_table_id;
};

// One Intel discovery table: one die's worth of units.
struct IntelTable {
  std::string source;  // "0000:6a:03.1 DVSEC @0x100 BAR0" or "MSR 0x201e on CPU 0"
  std::string origin;  // "pci" or "msr" (platform ignore lists are per origin)
  std::optional<Bdf> device;
  std::uint64_t base = 0;      // physical address of the global record
  std::string mapped_through;  // the file the table was read from
  int socket = -1;
  int die = -1;
  std::string socket_source;  // "NUMA node 1", "package of CPU 4", "order found (NUMA unknown)"
  std::uint64_t global[3] = {0, 0, 0};
  unsigned stride = 0;  // bytes between unit records
  unsigned max_units = 0;
  unsigned access_type = 0;
  std::uint64_t global_ctl = 0;
  unsigned valid_units = 0;
  unsigned skipped_units = 0;
  unsigned empty_records = 0;  // all-zero unit records (padding), not counted as skipped
};

struct Inventory {
  std::string platform;  // "spr", "" when the CPU is not in the database
  std::string platform_description;
  std::vector<IntelTable> intel_tables;
  std::vector<PmuUnit> units;
  std::optional<ApmtSummary> apmt;      // the ACPI APMT, when the machine has one
  std::vector<RootPortMap> root_ports;  // NVIDIA PCIe RC mapping of root ports
  std::vector<std::string> warnings;    // every skipped unit and table, with the reason

  // Units of one kernel PMU name, or of a type name that expands to all its boxes
  // ("uncore_imc" -> uncore_imc_0..7 on every socket).
  std::vector<const PmuUnit*> find(std::string_view pmu_name) const;
};

}  // namespace pmukit::discovery
