// pmukit -- Intel IIO stack mapping schemes, as loaded from platforms/intel/iio_*.json: where a
// model's firmware publishes the root bus of each IIO stack, which table turns a stack's entry
// (CPUBUSNO index or SAD stack id) into its IIO PMU, and which functions of a stack are its
// "parts" (the bits of the ch_mask filter of IIO events). Code reads these; it never switches on
// a model.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace pmukit::platform {

struct IioRange {
  unsigned lo = 0;
  unsigned hi = 0;  // inclusive
  bool holds(unsigned v) const { return v >= lo && v <= hi; }
};

// One rule giving functions of a stack their parts. A function matches when its bus is the
// stack's root bus plus one of `bus_offsets`, its device number is in `devs`, and function,
// vendor and device id match when given. Root-port rules give part = device - devs.lo, or the
// part `part_by_id` lists for the port's device id; other rules give `parts`. Devices below a
// matched bridge share its parts when `below` is set (always for root ports).
struct IioPartRule {
  IioRange bus_offsets{0, 0};
  IioRange devs{0, 31};
  std::optional<unsigned> fn;
  std::optional<std::uint16_t> vendor;
  std::vector<std::uint16_t> ids;  // empty: any device id
  bool root_ports = false;
  std::map<std::uint16_t, unsigned> part_by_id;
  std::vector<unsigned> parts;
  bool below = false;
  std::string what;  // "root port", "DSA", "PCH"
};

struct IioStackEntry {
  unsigned entry = 0;               // CPUBUSNO index, or SAD_CONTROL_CFG stack id
  std::optional<unsigned> pmu;      // uncore_iio_<pmu>; none for buses without an IIO PMU (UBOX)
  std::optional<unsigned> part_of;  // entry whose stack this bus belongs to (GNR accelerator buses)
  std::string name;                 // "PCIe0", "DMI", "IDX0"
  std::string layout;               // key into the table's layouts ("" = no parts)
  std::string note;
};

struct IioTable {
  std::string name;              // "xcc"
  std::optional<unsigned> chop;  // the CAPID4 physical chop that selects this table
  std::vector<IioStackEntry> stacks;
  std::map<std::string, std::vector<IioPartRule>> layouts;

  const IioStackEntry* entry(unsigned e) const;
  const IioStackEntry* by_pmu(unsigned pmu) const;
};

struct IioLocator {
  std::uint16_t device_id = 0;  // Intel (8086) device id
  std::optional<unsigned> dev;  // device number, when the device sits at a fixed one
  std::optional<unsigned> fn;
};

struct IioMapScheme {
  std::string name;  // "spr"
  std::string description;
  std::string route;  // "cpubusno" or "sad_control"
  IioLocator locator;
  // cpubusno route: dwords of four one-byte entries, and the register of their valid bits
  std::vector<unsigned> cpubusno;
  std::optional<unsigned> cpubusno_valid;
  // The function on the located device's bus that holds CPUBUSNO, when not the located device:
  // on Skylake-SP the UBOX 8086:2014 (device 8 function 0) holds the node ID registers the kernel
  // reads and 8086:2016 at device 8 function 2 the bus numbers PCM reads.
  std::optional<std::pair<unsigned, unsigned>> cpubusno_function;  // {device, function}
  // sad_control route: the SAD_CONTROL_CFG register of the located device
  unsigned sad_control = 0;
  // How a stack's socket is found: "gidnidmap" (UBOX node id registers) or "sad_control"
  // (SAD_CONTROL_CFG of device 0 function 0 on the first valid entry's bus, or of the located
  // device itself on the sad_control route).
  std::string socket_from;
  unsigned nodeid_register = 0;
  unsigned gidnidmap_register = 0;
  std::optional<unsigned> zero_bus_pmu;   // the one PMU whose root bus may be 0 (others: no stack)
  std::optional<IioLocator> chop_device;  // PCU with CAPID4, when tables depend on the die chop
  unsigned chop_register = 0;
  std::string pmu_pattern;           // "uncore_iio_{pmu}"
  std::string free_running_pattern;  // "uncore_iio_free_running_{pmu}", "" when none
  std::string free_running_event;    // "bw_in_port{part}"
  unsigned free_running_ports = 0;
  std::string pmu_kind;  // platforms/pmus kind whose formats hold the filter terms
  std::string ch_mask_term;
  std::string fc_mask_term;
  unsigned fc_mask = 0;       // function classes counted: all of them (PCM opCode files: 0x7)
  std::string example_event;  // "event=0x83,umask=0x01"
  std::string example_what;
  bool kernel_mapping = false;     // Linux exposes uncore_iio_<n>/die<x> on this model
  std::uint16_t iio_box_type = 1;  // discovery-table box type of IIO units
  std::vector<IioTable> tables;
  std::string source;  // what the data was verified against

  // The table for a die chop; with one table, that one. Null when no table fits.
  const IioTable* table_for(std::optional<unsigned> chop) const;
};

// Loads the "iio_maps" section of one platforms/ document; throws Error naming `where` and the
// entry when the data is malformed (a layout that is not defined, a rule without parts...). A deque:
// the database hands out pointers to schemes while it may still load others.
void load_iio_maps(const nlohmann::json& doc, const std::string& where, std::deque<IioMapScheme>& out);

}  // namespace pmukit::platform
