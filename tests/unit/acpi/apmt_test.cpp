// APMT decoding against the fwts corpus samples: the valid table decodes field by field exactly as
// fwts prints it, the malformed one yields fwts's six findings plus the bad checksum, and damaged
// structure (node length 0, nodes past the end, short tables) is an error naming the offset.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>

#include "pmukit/acpi/apmt.h"
#include "pmukit/util/error.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

std::vector<std::uint8_t> data_file(const std::string& name) {
  auto path = test::source_dir() / "tests/data/acpi" / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// fwts's "APMT node:" blocks: field name -> value, one map per node.
std::vector<std::map<std::string, std::uint64_t>> fwts_nodes(const std::string& name) {
  auto path = test::source_dir() / "tests/data/acpi" / name;
  std::ifstream in(path);
  std::vector<std::map<std::string, std::uint64_t>> nodes;
  static const std::regex field(R"(^apmt\s{2,}  ([A-Za-z0-9 ]+):\s+0x([0-9a-f]+)\s*$)");
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("APMT node:") != std::string::npos) nodes.emplace_back();
    std::smatch m;
    if (!nodes.empty() && std::regex_match(line, m, field)) nodes.back()[m[1]] = std::stoull(m[2], nullptr, 16);
  }
  return nodes;
}

bool has(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

std::string thrown(const std::vector<std::uint8_t>& bytes) {
  try {
    acpi::parse_apmt(bytes, "t.bin");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void set16(std::vector<std::uint8_t>& b, std::size_t at, std::uint16_t v) {
  b[at] = static_cast<std::uint8_t>(v);
  b[at + 1] = static_cast<std::uint8_t>(v >> 8);
}

void fix_length_and_checksum(std::vector<std::uint8_t>& b) {
  auto n = static_cast<std::uint32_t>(b.size());
  for (int i = 0; i < 4; ++i) b[4 + i] = static_cast<std::uint8_t>(n >> (8 * i));
  b[9] = 0;
  unsigned sum = 0;
  for (auto x : b) sum += x;
  b[9] = static_cast<std::uint8_t>(0x100 - (sum & 0xff));
}

}  // namespace

TEST(Apmt, ValidCorpusTableDecodesFieldByFieldLikeFwts) {
  auto t = acpi::parse_apmt(data_file("apmt-valid.bin"), "apmt-valid.bin");
  auto fwts = fwts_nodes("apmt-valid.fwts.log");
  ASSERT_EQ(fwts.size(), 2u);
  ASSERT_EQ(t.nodes.size(), fwts.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& n = t.nodes[i];
    auto& f = fwts[i];
    ASSERT_EQ(f.size(), 13u);  // every field fwts prints
    EXPECT_EQ(n.length, f["Length"]);
    EXPECT_EQ(n.flags, f["Node flags"]);
    EXPECT_EQ(n.type, f["Node type"]);
    EXPECT_EQ(n.id, f["Identifier"]);
    EXPECT_EQ(n.inst_primary, f["Node Instance primary"]);
    EXPECT_EQ(n.inst_secondary, f["Node Instance secondary"]);
    EXPECT_EQ(n.base0, f["Base address 0"]);
    EXPECT_EQ(n.base1, f["Base address 1"]);
    EXPECT_EQ(n.ovflw_irq, f["Overflow interrupt"]);
    EXPECT_EQ(n.reserved1, f["Reserved1"]);
    EXPECT_EQ(n.ovflw_irq_flags, f["Overflow interrupt flags"]);
    EXPECT_EQ(n.proc_affinity, f["Processor affinity"]);
    EXPECT_EQ(n.impl_id, f["Implementation ID"]);
    EXPECT_TRUE(n.problems.empty()) << n.problems.front();  // fwts: "No issues found"
  }
  EXPECT_TRUE(t.checksum_ok());
  EXPECT_TRUE(t.all_warnings().empty());
  EXPECT_EQ(t.header.length, 0x94u);
  EXPECT_EQ(t.header.revision, 0);
  EXPECT_EQ(acpi::printable(t.header.oem_id), "NVIDIA");
  EXPECT_EQ(acpi::printable(t.header.oem_table_id), "TEMPLATE");
  EXPECT_EQ(acpi::printable(t.header.creator_id), "INTL");
  EXPECT_EQ(t.header.creator_revision, 0x20211217u);
  EXPECT_EQ(t.nodes[1].offset, 0x5cu);
}

TEST(Apmt, FlagsAndFieldsAreDecodedInTheDescription) {
  auto t = acpi::parse_apmt(data_file("apmt-valid.bin"), "apmt-valid.bin");
  // Node 1: flags 0x06 = processor container affinity + 64-bit atomic; edge-triggered IRQ 4.
  EXPECT_FALSE(t.nodes[1].dual_page());
  EXPECT_TRUE(t.nodes[1].affinity_container());
  EXPECT_TRUE(t.nodes[1].atomic64());
  auto lines = acpi::describe(t);
  EXPECT_TRUE(has(lines, "Node flags:               0x06 (dual page: no; affinity: processor "
                         "container; 64-bit atomic: yes)"));
  EXPECT_TRUE(has(lines, "Overflow interrupt flags: 0x00000001 (edge triggered, wired)"));
  EXPECT_TRUE(has(lines, "Node type:                0x03 (ACPI device)"));
  EXPECT_TRUE(has(lines, "Implementation ID:        0x0000036b (overrides PMIIDR; implementer 0x36b)"));
  EXPECT_TRUE(has(lines, "Checksum:                 0x79 (correct)"));
  EXPECT_TRUE(has(lines, "Identifier:               0x00000001 (platform device arm-cs-arch-pmu.1)"));
}

TEST(Apmt, MalformedCorpusTableGivesFwtsFindingsAndBadChecksum) {
  auto t = acpi::parse_apmt(data_file("apmt-malformed.bin"), "apmt-malformed.bin");
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_FALSE(t.checksum_ok());
  // fwts apmt-0002.log: six FAILED lines, in node order.
  EXPECT_TRUE(has(t.nodes[0].problems, "node flags bits [7:3] are reserved and must be zero, got 0x0a"));
  EXPECT_TRUE(has(t.nodes[0].problems, "node type 0x02 (PCIe root complex): the secondary instance "
                                       "field must be 0, got 0x00000002"));
  EXPECT_TRUE(has(t.nodes[0].problems, "reserved1 must be zero, got 0x00000003"));
  EXPECT_TRUE(has(t.nodes[0].problems, "overflow interrupt flags bits [31:1] must be zero"));
  EXPECT_EQ(t.nodes[0].problems.size(), 4u);
  EXPECT_EQ(t.nodes[1].problems,
            std::vector<std::string>{"node type 0x04 (cache): the primary instance field must be 0, got 0x2"});
  EXPECT_EQ(t.nodes[2].problems, std::vector<std::string>{"node type 0x05 is unknown (DEN0117 defines 0 to 4)"});
  auto all = t.all_warnings();
  EXPECT_EQ(all.size(), 7u);  // checksum + the six node findings
  EXPECT_TRUE(has(all, "apmt-malformed.bin: checksum 0x79 is wrong"));
  EXPECT_TRUE(has(all, "apmt-malformed.bin: node 2 (id 0x1) @0x94: node type 0x05 is unknown"));
  // The fwts log agrees on the count of failures.
  std::ifstream log(test::source_dir() / "tests/data/acpi/apmt-malformed.fwts.log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  std::size_t failed = 0;
  for (auto at = text.find("FAILED ["); at != std::string::npos; at = text.find("FAILED [", at + 1)) ++failed;
  EXPECT_EQ(failed, 6u);
}

TEST(Apmt, ZeroNodeLengthIsAnErrorNotAHang) {
  auto b = data_file("apmt-valid.bin");
  set16(b, 0x24, 0);
  fix_length_and_checksum(b);
  EXPECT_EQ(thrown(b), "t.bin: node 0 @0x24: length 0");
}

TEST(Apmt, NodeRunningPastTheTableIsAnError) {
  auto b = data_file("apmt-valid.bin");
  set16(b, 0x5c, 0x40);  // second node claims 64 bytes, 56 are left
  fix_length_and_checksum(b);
  EXPECT_EQ(thrown(b), "t.bin: node 1 @0x5c: length 0x40 runs past the table end 0x94");
  b = data_file("apmt-valid.bin");
  b.resize(b.size() - 8);  // table truncated mid-node
  fix_length_and_checksum(b);
  EXPECT_EQ(thrown(b), "t.bin: node 1 @0x5c: length 0x38 runs past the table end 0x8c");
}

TEST(Apmt, ShortNodesHeadersAndLengthsAreErrors) {
  auto b = data_file("apmt-valid.bin");
  set16(b, 0x24, 0x20);
  fix_length_and_checksum(b);
  EXPECT_EQ(thrown(b), "t.bin: node 0 @0x24: length 0x20 is shorter than the 56-byte node");
  EXPECT_EQ(thrown(std::vector<std::uint8_t>(20, 0)), "t.bin: 20 bytes is shorter than the 36-byte ACPI table header");
  b = data_file("apmt-valid.bin");
  b[4] = 0xff;  // length 0xff beyond the 0x94 bytes
  EXPECT_EQ(thrown(b), "t.bin: table length 0xff runs past the 0x94 bytes present");
  b = data_file("apmt-valid.bin");
  b[0] = 'X';
  EXPECT_EQ(thrown(b), "t.bin: signature 'XPMT' is not APMT");
  b = data_file("apmt-valid.bin");
  b.resize(0x25);  // one byte of a node
  fix_length_and_checksum(b);
  EXPECT_EQ(thrown(b), "t.bin: node 0 @0x24: 1 byte(s) left, too few for a node length");
}

TEST(Apmt, LongerNodesAndTrailingBytesAreWarnings) {
  auto b = data_file("apmt-valid.bin");
  b.insert(b.begin() + 0x5c, 8, 0);  // node 0 grows to 64 bytes
  set16(b, 0x24, 0x40);
  fix_length_and_checksum(b);
  b.push_back(0xaa);  // a byte beyond the table length
  auto t = acpi::parse_apmt(b, "t.bin");
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[1].offset, 0x64u);
  EXPECT_EQ(t.nodes[1].impl_id, 0x36bu);
  EXPECT_TRUE(has(t.nodes[0].problems, "length 0x40 is longer than the 56-byte node"));
  EXPECT_TRUE(has(t.warnings, "0x1 bytes after the table length 0x9c ignored"));
  EXPECT_TRUE(t.checksum_ok());
}

TEST(Apmt, AcpiHidIsTheInstancePrimaryAsText) {
  acpi::ApmtNode n;
  n.inst_primary = 0x3032413241445644ull;  // "DVDA2A20" little-endian
  EXPECT_EQ(n.acpi_hid(), "DVDA2A20");
  n.inst_primary = 0x41;
  EXPECT_EQ(n.acpi_hid(), "A");
  EXPECT_EQ(acpi::apmt_type_tag(3), "acpi");
  EXPECT_EQ(acpi::apmt_type_tag(5), "");
  EXPECT_EQ(acpi::apmt_type_name(7), "unknown (7)");
}
