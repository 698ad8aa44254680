// pmukit -- APMT decoding. Layout: Arm DEN0117 1.0 (APMT) and ACPICA actbl2.h
// (struct acpi_apmt_node, packed); node checks follow fwts src/acpi/apmt (reserved flag bits
// [7:3], reserved1, overflow-interrupt flag bits [31:1], instance fields per node type).
#include "pmukit/acpi/apmt.h"

#include <fmt/format.h>

#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"

namespace pmukit::acpi {

namespace {

std::uint64_t le(std::span<const std::uint8_t> b, std::size_t at, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(b[at + i]) << (8 * i);
  return v;
}

// Node field offsets (DEN0117 table 3).
constexpr std::size_t kLength = 0, kFlags = 2, kType = 3, kId = 4, kInstPrimary = 8, kInstSecondary = 16, kBase0 = 20,
                      kBase1 = 28, kOvflwIrq = 36, kReserved1 = 40, kOvflwIrqFlags = 44, kProcAffinity = 48,
                      kImplId = 52;

void check_node(ApmtNode& n) {
  if (n.flags & 0xf8)
    n.problems.push_back(fmt::format("node flags bits [7:3] are reserved and must be zero, got {:#04x}", n.flags));
  switch (n.type) {
  case 0:
  case 1:
  case 2:
    if (n.inst_secondary != 0)
      n.problems.push_back(fmt::format("node type {:#04x} ({}): the secondary instance field must be 0, got {:#010x}",
                                       n.type, apmt_type_name(n.type), n.inst_secondary));
    break;
  case 3:
    break;
  case 4:
    if (n.inst_primary != 0)
      n.problems.push_back(fmt::format("node type {:#04x} ({}): the primary instance field must be 0, got {:#x}",
                                       n.type, apmt_type_name(n.type), n.inst_primary));
    break;
  default:
    n.problems.push_back(fmt::format("node type {:#04x} is unknown (DEN0117 defines 0 to 4)", n.type));
  }
  if (n.reserved1 != 0) n.problems.push_back(fmt::format("reserved1 must be zero, got {:#010x}", n.reserved1));
  if (n.ovflw_irq_flags & ~1u)
    n.problems.push_back(fmt::format("overflow interrupt flags bits [31:1] must be zero (only wired interrupts are "
                                     "defined), got {:#010x}",
                                     n.ovflw_irq_flags));
}

}  // namespace

std::string ApmtNode::acpi_hid() const {
  std::string s;
  for (unsigned i = 0; i < 8; ++i) {
    char c = static_cast<char>((inst_primary >> (8 * i)) & 0xff);
    if (c == '\0') break;
    s += c;
  }
  return s;
}

std::string ApmtNode::platform_device() const {
  return fmt::format("arm-cs-arch-pmu.{}", id);
}

std::string ApmtNode::where() const {
  return fmt::format("node {} (id {:#x}) @{:#x}", index, id, offset);
}

std::vector<std::string> Apmt::all_warnings() const {
  std::vector<std::string> out;
  for (const auto& w : warnings) out.push_back(fmt::format("{}: {}", source, w));
  for (const auto& n : nodes)
    for (const auto& p : n.problems) out.push_back(fmt::format("{}: {}: {}", source, n.where(), p));
  return out;
}

namespace {

// The node at `off`, whose length has been checked to fit the table.
ApmtNode parse_node(std::span<const std::uint8_t> table, std::size_t off, unsigned index, std::uint16_t len) {
  ApmtNode n;
  n.index = index;
  n.offset = off;
  n.length = len;
  n.flags = static_cast<std::uint8_t>(le(table, off + kFlags, 1));
  n.type = static_cast<std::uint8_t>(le(table, off + kType, 1));
  n.id = static_cast<std::uint32_t>(le(table, off + kId, 4));
  n.inst_primary = le(table, off + kInstPrimary, 8);
  n.inst_secondary = static_cast<std::uint32_t>(le(table, off + kInstSecondary, 4));
  n.base0 = le(table, off + kBase0, 8);
  n.base1 = le(table, off + kBase1, 8);
  n.ovflw_irq = static_cast<std::uint32_t>(le(table, off + kOvflwIrq, 4));
  n.reserved1 = static_cast<std::uint32_t>(le(table, off + kReserved1, 4));
  n.ovflw_irq_flags = static_cast<std::uint32_t>(le(table, off + kOvflwIrqFlags, 4));
  n.proc_affinity = static_cast<std::uint32_t>(le(table, off + kProcAffinity, 4));
  n.impl_id = static_cast<std::uint32_t>(le(table, off + kImplId, 4));
  if (len > kApmtNodeBytes)
    n.problems.push_back(fmt::format("length {:#x} is longer than the {}-byte node of DEN0117 1.0: extra bytes ignored",
                                     len, kApmtNodeBytes));
  check_node(n);
  return n;
}

// Every node has a non-zero length, so the walk advances on each step and ends within the table.
// Every node has a non-zero length, so the walk advances on each step and ends within the table.
void parse_nodes(std::span<const std::uint8_t> table, std::string_view source, Apmt& t) {
  std::size_t off = kHeaderBytes;
  unsigned index = 0;
  while (off < table.size()) {
    if (table.size() - off < 2)
      throw Error(fmt::format("{}: node {} @{:#x}: {} byte(s) left, too few for a node length", source, index, off,
                              table.size() - off));
    auto len = static_cast<std::uint16_t>(le(table, off + kLength, 2));
    if (len == 0) throw Error(fmt::format("{}: node {} @{:#x}: length 0", source, index, off));
    if (len < kApmtNodeBytes)
      throw Error(fmt::format("{}: node {} @{:#x}: length {:#x} is shorter than the {}-byte node", source, index, off,
                              len, kApmtNodeBytes));
    if (len > table.size() - off)
      throw Error(fmt::format("{}: node {} @{:#x}: length {:#x} runs past the table end {:#x}", source, index, off, len,
                              table.size()));
    if (index >= limits::kApmtNodes)
      throw Error(fmt::format("{}: node {} @{:#x}: more than {} nodes; pmukit reads at most that many", source, index,
                              off, limits::kApmtNodes));
    t.nodes.push_back(parse_node(table, off, index, len));
    off += len;
    ++index;
  }
}

}  // namespace

Apmt parse_apmt(std::span<const std::uint8_t> bytes, std::string_view source) {
  Apmt t;
  t.source = source;
  t.header = parse_header(bytes, source);
  if (t.header.signature != "APMT")
    throw Error(fmt::format("{}: signature '{}' is not APMT", source, printable(t.header.signature)));
  if (t.header.length < kHeaderBytes)
    throw Error(fmt::format("{}: table length {:#x} is shorter than the ACPI header", source, t.header.length));
  if (t.header.length > bytes.size())
    throw Error(
        fmt::format("{}: table length {:#x} runs past the {:#x} bytes present", source, t.header.length, bytes.size()));
  if (t.header.length < bytes.size())
    t.warnings.push_back(fmt::format("{:#x} bytes after the table length {:#x} ignored", bytes.size() - t.header.length,
                                     t.header.length));
  auto table = bytes.first(t.header.length);
  t.sum = byte_sum(table);
  if (t.sum != 0)
    t.warnings.push_back(fmt::format("checksum {:#04x} is wrong: the table sums to {:#04x}, not 0 (checksum should be "
                                     "{:#04x})",
                                     t.header.checksum, t.sum, static_cast<std::uint8_t>(t.header.checksum - t.sum)));
  parse_nodes(table, source, t);
  return t;
}

std::string apmt_type_name(std::uint8_t type) {
  switch (type) {
  case 0:
    return "memory controller";
  case 1:
    return "SMMU";
  case 2:
    return "PCIe root complex";
  case 3:
    return "ACPI device";
  case 4:
    return "cache";
  }
  return fmt::format("unknown ({})", type);
}

std::string_view apmt_type_tag(std::uint8_t type) {
  static constexpr std::string_view kTags[] = {"mc", "smmu", "pcie", "acpi", "cache"};
  return type < kApmtTypeCount ? kTags[type] : std::string_view{};
}

std::vector<std::string> describe(const Apmt& t) {
  const auto& h = t.header;
  std::vector<std::string> out;
  out.push_back(fmt::format("APMT from {}", t.source));
  out.push_back(fmt::format("  Signature:                {}", printable(h.signature)));
  out.push_back(fmt::format("  Length:                   {:#010x} ({} nodes)", h.length, t.nodes.size()));
  out.push_back(fmt::format("  Revision:                 {:#04x}", h.revision));
  out.push_back(
      fmt::format("  Checksum:                 {:#04x} ({})", h.checksum, t.checksum_ok() ? "correct" : "WRONG"));
  out.push_back(fmt::format("  OEM ID:                   \"{}\"", printable(h.oem_id)));
  out.push_back(fmt::format("  OEM table ID:             \"{}\"", printable(h.oem_table_id)));
  out.push_back(fmt::format("  OEM revision:             {:#010x}", h.oem_revision));
  out.push_back(fmt::format("  Creator ID:               \"{}\"", printable(h.creator_id)));
  out.push_back(fmt::format("  Creator revision:         {:#010x}", h.creator_revision));
  for (const auto& n : t.nodes) {
    out.push_back(fmt::format("APMT node {} @{:#x}:", n.index, n.offset));
    out.push_back(fmt::format("  Length:                   {:#06x}", n.length));
    out.push_back(fmt::format("  Node flags:               {:#04x} (dual page: {}; affinity: {}; 64-bit atomic: {})",
                              n.flags, n.dual_page() ? "yes" : "no",
                              n.affinity_container() ? "processor container" : "processor",
                              n.atomic64() ? "yes" : "no"));
    out.push_back(fmt::format("  Node type:                {:#04x} ({})", n.type, apmt_type_name(n.type)));
    out.push_back(fmt::format("  Identifier:               {:#010x} (platform device {})", n.id, n.platform_device()));
    if (n.type == static_cast<std::uint8_t>(ApmtType::Acpi)) {
      out.push_back(
          fmt::format("  Node Instance primary:    {:#018x} (_HID \"{}\")", n.inst_primary, printable(n.acpi_hid())));
      out.push_back(fmt::format("  Node Instance secondary:  {:#010x} (_UID {})", n.inst_secondary, n.inst_secondary));
    } else {
      out.push_back(fmt::format("  Node Instance primary:    {:#018x}", n.inst_primary));
      out.push_back(fmt::format("  Node Instance secondary:  {:#010x}", n.inst_secondary));
    }
    out.push_back(fmt::format("  Base address 0:           {:#018x}", n.base0));
    out.push_back(fmt::format("  Base address 1:           {:#018x}{}", n.base1,
                              n.dual_page() ? "" : " (unused: single page, page 1 = page 0)"));
    out.push_back(fmt::format("  Overflow interrupt:       {:#010x}{}", n.ovflw_irq,
                              n.ovflw_irq ? fmt::format(" (GSI {})", n.ovflw_irq) : " (none)"));
    out.push_back(fmt::format("  Reserved1:                {:#010x}", n.reserved1));
    out.push_back(fmt::format("  Overflow interrupt flags: {:#010x} ({}, {})", n.ovflw_irq_flags,
                              n.ovflw_irq_flags & 1 ? "edge triggered" : "level triggered",
                              n.ovflw_irq_flags & 2 ? "type 1 (undefined)" : "wired"));
    out.push_back(fmt::format("  Processor affinity:       {:#010x} ({} UID {})", n.proc_affinity,
                              n.affinity_container() ? "processor container" : "ACPI processor", n.proc_affinity));
    out.push_back(fmt::format("  Implementation ID:        {:#010x}{}", n.impl_id,
                              n.impl_id ? fmt::format(" (overrides PMIIDR; implementer {:#05x})", n.impl_id & 0xfff)
                                        : " (none: PMIIDR is used)"));
    for (const auto& p : n.problems) out.push_back("  ! " + p);
  }
  for (const auto& w : t.warnings) out.push_back("! " + w);
  return out;
}

}  // namespace pmukit::acpi
