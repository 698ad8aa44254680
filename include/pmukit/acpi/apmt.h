// pmukit -- the Arm Performance Monitoring Unit Table (APMT, Arm DEN0117 1.0): header, checksum and
// the 56-byte nodes, every field and flag decoded, with the spec checks fwts applies.
//
// Structural damage is an Error (a node length of 0 or below 56, a node running past the table, a
// table length beyond the file): the walk never loops or reads out of bounds. Violations that
// leave the table readable (bad checksum, reserved bits, instance fields the node type forbids,
// an unknown node type) are warnings on the table or the node.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/acpi/table.h"

namespace pmukit::acpi {

inline constexpr std::size_t kApmtNodeBytes = 56;

// Node types (DEN0117 table 2; Linux ACPI_APMT_NODE_TYPE_*).
enum class ApmtType : std::uint8_t { MemoryController = 0, Smmu = 1, PcieRoot = 2, Acpi = 3, Cache = 4 };
inline constexpr unsigned kApmtTypeCount = 5;

struct ApmtNode {
  unsigned index = 0;      // position in the table
  std::size_t offset = 0;  // byte offset in the table
  std::uint16_t length = 0;
  std::uint8_t flags = 0;  // bit0 dual page, bit1 affinity is a processor container, bit2 64-bit atomic
  std::uint8_t type = 0;
  std::uint32_t id = 0;              // the platform device id Linux gives arm-cs-arch-pmu.<id>
  std::uint64_t inst_primary = 0;    // ACPI type: the device's _HID, 8 bytes of text
  std::uint32_t inst_secondary = 0;  // ACPI type: the device's _UID
  std::uint64_t base0 = 0;           // page 0
  std::uint64_t base1 = 0;           // page 1, meaningful only with the dual-page flag
  std::uint32_t ovflw_irq = 0;       // GSI, 0 = none
  std::uint32_t reserved1 = 0;
  std::uint32_t ovflw_irq_flags = 0;  // bit0 mode (0 level, 1 edge), bit1 type (0 wired)
  std::uint32_t proc_affinity = 0;    // ACPI processor UID or processor container UID
  std::uint32_t impl_id = 0;          // overrides PMIIDR when non-zero
  std::vector<std::string> problems;  // spec violations, one line each

  bool dual_page() const { return flags & 0x1; }
  bool affinity_container() const { return flags & 0x2; }
  bool atomic64() const { return flags & 0x4; }
  bool known_type() const { return type < kApmtTypeCount; }
  // ACPI-type nodes: inst_primary as the HID string (up to the first NUL).
  std::string acpi_hid() const;
  // "arm-cs-arch-pmu.<id>": the platform device Linux creates for this node
  // (drivers/acpi/arm64/apmt.c).
  std::string platform_device() const;
  // "node 2 (id 0x2) @0x94", for messages.
  std::string where() const;
};

struct Apmt {
  std::string source;  // the file (or a label) the bytes came from
  TableHeader header;
  std::uint8_t sum = 0;  // byte sum of the table; 0 when the checksum is right
  std::vector<ApmtNode> nodes;
  std::vector<std::string> warnings;  // table-level: checksum, trailing bytes

  bool checksum_ok() const { return sum == 0; }
  // Every warning: table-level, then each node's problems prefixed with the node.
  std::vector<std::string> all_warnings() const;
};

// Decodes an APMT. Throws Error("<source>: ...") for damage the walk cannot get past.
Apmt parse_apmt(std::span<const std::uint8_t> bytes, std::string_view source);

// "memory controller", "SMMU", "PCIe root complex", "ACPI device", "cache", "unknown (5)".
std::string apmt_type_name(std::uint8_t type);
// The kernel's arm_cspmu_type_str: "mc", "smmu", "pcie", "acpi", "cache"; "" for unknown types.
std::string_view apmt_type_tag(std::uint8_t type);

// Human-readable decode: one line per header field, then per node one line per field with the
// fwts field names ("Length:", "Node flags:", ...) and the meaning of each flag.
std::vector<std::string> describe(const Apmt& apmt);

}  // namespace pmukit::acpi
