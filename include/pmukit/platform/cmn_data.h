// pmukit -- Arm CMN platform data (platforms/arm/cmn.json): the firmware IDs that describe a CMN
// instance, what differs between CMN parts, and the names of node types and port device types.
// Discovery reads registers with the layouts of regs/cmn.h and asks this table everything that
// varies by part, so a new part is a data change.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace pmukit::platform {

// How Linux finds one kind of CMN instance (arm-cmn.c arm_cmn_acpi_match / arm_cmn_of_match).
struct CmnFirmwareId {
  std::string acpi_hid;       // "ARMHC700", or "" for a devicetree entry
  std::string dt_compatible;  // "arm,cmn-700", or ""
  std::uint16_t part = 0;     // the part the firmware promises
  std::string root_node;      // "": root node at offset 0; "second_resource" (ACPI CMN-600);
                              // "arm,root-node" (devicetree CMN-600 property)
};

struct CmnPart {
  std::uint16_t part = 0;                            // PERIPH_ID part number
  std::vector<std::uint16_t> same_as;                // numbers treated as this part (CMN-600AE)
  std::string name;                                  // "CMN-700"
  std::vector<std::string> revisions;                // index = PERIPH_ID_2 revision field
  unsigned child_offset_bits = 30;                   // width of a child pointer's offset field
  unsigned connect_info_ports = 2;                   // ports with a connect-info register
  std::uint64_t high_ports_shift = 0;                // CI-700: ports 2..5 sit this much higher
  std::optional<std::uint64_t> dtc_domain_register;  // XP register holding the DTC domain
  std::uint64_t node_size = 0x4000;                  // register block of one node (alignment too)
  bool xp_port_count = false;                        // XP node_info [51:48] counts device ports
  std::uint64_t port_info_stride = 8;                // por_mxp_p<n>_info at 0x900 + n * stride
  // What a booted mesh's registers hold where nothing about the mesh's layout decides it: by node
  // type name, offset -> value (the TRM's reset values; a synthetic machine writes them).
  std::map<std::string, std::map<std::uint64_t, std::uint64_t>> register_values;
  std::string note;

  std::string revision_name(unsigned rev) const;
};

struct CmnNodeType {
  std::uint16_t type = 0;
  std::string name;                  // "CCLA", as Arm's documentation and the CMN guides write it
  std::vector<std::string> aliases;  // other names users type (the kernel's event prefixes)
  bool device = true;                // may be an XP's child (CFG and XP may not)
  bool events = false;               // has a PMU event selector (the kernel counts it)
};

struct CmnData {
  std::vector<CmnFirmwareId> firmware;
  std::string pmu_name;  // "arm_cmn_{index}"
  std::vector<CmnPart> parts;
  std::vector<CmnNodeType> node_types;
  std::map<std::uint8_t, std::string> device_types;  // XP connect-info device type -> "CCG"

  const CmnPart* part(std::uint16_t number) const;
  const CmnNodeType* node_type(std::uint16_t type) const;
  // "0x105", "CCLA" when known.
  std::string type_name(std::uint16_t type) const;
  std::string device_type_name(std::uint8_t code) const;
  // Node types a user's word names: a name or alias in any case, with or without '-' or '_'
  // ("ccla", "HN-F", "hnf", "rnid"), or a number ("0x105", "261"). Empty when nothing matches.
  std::vector<std::uint16_t> types_named(std::string_view word) const;
};

void load_cmn_data(const nlohmann::json& section, const std::string& where, std::optional<CmnData>& out);

}  // namespace pmukit::platform
