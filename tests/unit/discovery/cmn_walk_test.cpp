// The Arm CMN node tree walk over register images: what it reads, and every guard (loops, pointers
// outside the region or misaligned, huge child counts, external and isolated children, depth,
// device isolation, unknown parts). Register values are packed here from the layouts Linux
// arm-cmn.c programs (CMN_NODE_INFO: type [15:0], node id [31:16], logical id [47:32];
// CMN_CHILD_INFO: count [15:0], pointer offset [31:16]; child pointer: offset [29:0] (CMN-600
// [27:0]), external bit 31; CFG PERIPH_ID_01 @0x8: part [7:0] and [35:32]; PERIPH_ID_23 @0x10:
// revision [7:4]; por_info_global @0x900: multiple DTMs 63, device isolation 44; XP connect info
// @0x8 + 8p; CMN-700 DTC domain @0x960), not taken from pmukit's headers.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "pmukit/families/cmn/cmn_discovery.h"
#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/families/cmn/cmn_walk.h"
#include "pmukit/platform/database.h"

using namespace pmukit;
using discovery::CmnUnit;

namespace {

constexpr std::uint64_t kSize = 0x400000;  // a 4 MiB region

// Registers of a configuration region; reads of "forbidden" node blocks fail the test.
class Image : public discovery::CmnRegion {
 public:
  std::map<std::uint64_t, std::uint64_t> regs;
  std::set<std::uint64_t> forbidden;  // node blocks (16 KiB) the walk must never read
  mutable std::vector<std::uint64_t> reads;

  std::uint64_t size() const override { return kSize; }
  std::uint64_t read64(std::uint64_t off) const override {
    EXPECT_EQ(off % 8, 0u) << std::hex << "a 64-bit read @0x" << off << " not on a 64-bit register";
    check(off);
    auto it = regs.find(off);
    return it == regs.end() ? 0 : it->second;
  }
  std::uint32_t read32(std::uint64_t off) const override {
    EXPECT_EQ(off % 4, 0u) << std::hex << "a 32-bit read @0x" << off << " not on a 32-bit register";
    check(off);
    auto it = regs.find(off & ~7ull);
    return it == regs.end() ? 0 : static_cast<std::uint32_t>(it->second >> (8 * (off & 4)));
  }
  bool read_block(std::uint64_t block) const {
    for (auto r : reads)
      if ((r & ~0x3fffull) == block) return true;
    return false;
  }

 private:
  void check(std::uint64_t off) const {
    reads.push_back(off);
    EXPECT_LT(off, kSize) << "read outside the region";
    EXPECT_EQ(forbidden.count(off & ~0x3fffull), 0u) << std::hex << "read of forbidden node block @0x" << off;
  }
};

std::uint64_t node_info(std::uint64_t type, std::uint64_t id, std::uint64_t logid) {
  return type | id << 16 | logid << 32;
}

// A 2 x 1 CMN-700 r2p0 mesh: root at 0, XP (0,0) @0x10000 and XP (1,0) @0x20000 (2-bit coordinates:
// ids 0x00 and 0x20), each with port 0 connected; XP 0 has a DTC and an HN-F, XP 1 an RN-I and an
// external RN-SAM @0x34000.
struct Mesh {
  Image img;
  CmnUnit u;
  std::vector<std::string> problems;
  Mesh() {
    auto& r = img.regs;
    r[0x0] = node_info(0x2, 0, 0);   // CFG
    r[0x8] = 0x0000'0004'0000'003c;  // part 0x43c: CMN-700
    r[0x10] = 0x2b;                  // revision 2 (r2p0)
    r[0x80] = 0x0100'0002;           // 2 children, pointers at +0x100
    r[0x100] = 0x10000;
    r[0x108] = 0x20000;
    xp(0x10000, 0x00, 0, {0x14000, 0x18000});
    xp(0x20000, 0x20, 1, {0x24000, 0x8000'0000ull | 0x34000});
    r[0x14000] = node_info(0x3, 0x00, 0);  // DTC
    r[0x18000] = node_info(0x5, 0x01, 0);  // HN-F, port 0 device 1
    r[0x24000] = node_info(0xa, 0x20, 0);  // RN-I
    r[0x34000] = node_info(0xf, 0x21, 0);  // RN-SAM behind the external pointer
    img.forbidden.insert(0x34000);
  }
  void xp(std::uint64_t off, std::uint64_t id, std::uint64_t logid, std::vector<std::uint64_t> children) {
    img.regs[off] = node_info(0x6, id, logid);
    img.regs[off + 0x8] = 0x1e;  // port 0: a CCG
    img.regs[off + 0x80] = 0x0100'0000 | children.size();
    for (std::size_t i = 0; i < children.size(); ++i) img.regs[off + 0x100 + 8 * i] = children[i];
  }
  void walk() { walk_cmn(img, *platform::Database::builtin().soc().cmn, u, problems); }
  std::string all() const {
    std::string s;
    for (const auto& p : problems) s += p + "\n";
    return s;
  }
};

}  // namespace

TEST(CmnWalk, ReadsTheTreeAndNotTheExternalChild) {
  Mesh m;
  m.walk();
  EXPECT_TRUE(m.u.walked);
  EXPECT_TRUE(m.problems.empty()) << m.all();
  EXPECT_EQ(m.u.part, 0x43c);
  EXPECT_EQ(m.u.part_name, "CMN-700");
  EXPECT_EQ(m.u.revision_name, "r2p0");
  EXPECT_EQ(m.u.nodes.size(), 5u);  // 2 XPs, DTC, HN-F, RN-I
  EXPECT_EQ(m.u.mesh_x, 2u);
  ASSERT_EQ(m.u.skipped.size(), 1u);
  EXPECT_TRUE(m.u.skipped[0].expected);
  EXPECT_EQ(m.u.skipped[0].pointer, 0x80034000u);
  EXPECT_FALSE(m.img.read_block(0x34000));
  ASSERT_EQ(m.u.dtcs.size(), 1u);
  // CMN-700 XPs give their DTC domain at 0x960 (arm_cmn_dtc_domain()); both read it.
  EXPECT_EQ(std::count(m.img.reads.begin(), m.img.reads.end(), 0x10960u), 1);
  EXPECT_EQ(std::count(m.img.reads.begin(), m.img.reads.end(), 0x20960u), 1);
}

// Reads: root node_info, PERIPH_ID_01, PERIPH_ID_23, por_info_global, child_info, 2 XP pointers (7);
// per XP node_info, 6 connect infos (node_info [51:48] gives no port count here), DTC domain,
// child_info, 2 child pointers (11 each); 3 device node_infos. The minimum, one read per node_info (root, 2 XPs, 3
// devices), child_info (root and XPs) and pointer (2 + 4), is 6 + 3 + 6 = 15.
TEST(CmnWalk, CountsItsReads) {
  Mesh m;
  m.walk();
  EXPECT_EQ(m.u.register_reads, 7u + 2 * 11u + 3u);
  EXPECT_EQ(m.img.reads.size(), m.u.register_reads);
  // A CMN-700 XP with 2 device ports in node_info [51:48] (SCP-firmware
  // CMN700_MXP_NODE_INFO_NUM_DEVICE_PORT) has its connect info read for those 2 only.
  Mesh two;
  two.img.regs[0x10000] |= 2ull << 48;
  two.walk();
  EXPECT_EQ(two.u.register_reads, 7u + 2 * 11u + 3u - 4u);
  EXPECT_EQ(two.u.xps[0].device_ports, 2u);
  EXPECT_EQ(std::count(two.img.reads.begin(), two.img.reads.end(), 0x10018u), 0);  // port 2's connect info
}

TEST(CmnWalk, LoopsAreReadOnce) {
  Mesh m;
  m.img.regs[0x20108] = 0x10000;             // XP 1's second child points back at XP 0
  m.img.regs[0x18000 + 0x80] = 0x0100'0001;  // the HN-F claims a child...
  m.img.regs[0x18100] = 0x24000;             // ...but device nodes' children are never followed
  m.walk();
  EXPECT_TRUE(m.u.walked);
  EXPECT_EQ(std::count(m.img.reads.begin(), m.img.reads.end(), 0x10000u), 1);
  EXPECT_EQ(std::count(m.img.reads.begin(), m.img.reads.end(), 0x18100u), 0);
  EXPECT_NE(m.all().find("node @0x10000 is a node already visited (the tree loops)"), std::string::npos) << m.all();
}

TEST(CmnWalk, PointersOutsideTheRegionOrMisalignedAreNotRead) {
  Mesh m;
  m.img.regs[0x10100] = kSize;           // just past the end
  m.img.regs[0x10108] = 0x3f8000 + 8;    // inside, but not on a 16 KiB node boundary
  m.img.regs[0x20100] = kSize - 0x2000;  // aligned to 8 KiB: the block would leave the region
  m.walk();
  EXPECT_EQ(m.u.nodes.size(), 2u);  // the XPs only
  auto all = m.all();
  EXPECT_NE(all.find("node @0x400000 is outside the configuration region (0x400000 bytes)"), std::string::npos) << all;
  EXPECT_NE(all.find("node @0x3f8008 is not aligned to the 16 KiB node size"), std::string::npos) << all;
  EXPECT_NE(all.find("node @0x3fe000 is outside"), std::string::npos) << all;
  for (auto r : m.img.reads) EXPECT_LT(r, 0x30000u);
}

TEST(CmnWalk, HugeChildCounts) {
  Mesh xp;
  xp.img.regs[0x10080] = 0x0100'ffff;  // XP 0: 65535 children
  xp.walk();
  EXPECT_TRUE(xp.u.walked);
  EXPECT_FALSE(xp.img.read_block(0x14000));
  EXPECT_NE(xp.all().find("says 65535 children at +0x100: more than its pointer array holds; none read"),
            std::string::npos)
      << xp.all();
  Mesh root;
  root.img.regs[0x80] = 0x0100'0091;  // 145 crosspoints: more than 12 x 12
  root.walk();
  EXPECT_FALSE(root.u.walked);
  EXPECT_EQ(root.img.reads.size(), 5u);
  Mesh array;
  array.img.regs[0x80] = 0x3f00'0064;  // 100 pointers from +0x3f00 run past the 16 KiB block
  array.walk();
  EXPECT_FALSE(array.u.walked);
}

// Found by fuzz/cmn_walk: a child-info register placing the pointer array at +0xc made the walk
// read a 64-bit register at an address no register starts at. Both arrays are checked now.
TEST(CmnWalk, ChildPointerArraysOffTheirRegistersAreNotRead) {
  Mesh root;
  root.img.regs[0x80] = 0x000c'0002;  // 2 crosspoints, pointers at +0xc
  root.walk();
  EXPECT_FALSE(root.u.walked);
  EXPECT_NE(root.all().find("root node's child pointers are at +0xc, not a 64-bit register: not walked"),
            std::string::npos)
      << root.all();
  Mesh xp;
  xp.img.regs[0x10080] = 0x0104'0002;  // XP 0: 2 children, pointers at +0x104
  xp.walk();
  EXPECT_TRUE(xp.u.walked);
  EXPECT_FALSE(xp.img.read_block(0x14000));
  EXPECT_NE(xp.all().find("XP 0x0 @0x10000 says its child pointers are at +0x104, not a 64-bit register; none read"),
            std::string::npos)
      << xp.all();
}

TEST(CmnWalk, ExternalIsolatedAndZeroPointersAreNeverRead) {
  Mesh m;
  m.img.regs[0x10108] = 0x4000'0000ull | 0x18000;  // bit 30: isolated (CMN S3) or reserved
  m.img.regs[0x20100] = 0;                         // a zero pointer: AmpereOneX's extra children
  m.img.forbidden.insert(0x18000);
  m.walk();
  EXPECT_TRUE(m.problems.empty()) << m.all();
  EXPECT_EQ(m.u.skipped.size(), 3u);
  EXPECT_EQ(std::count(m.img.reads.begin(), m.img.reads.end(), 0u), 1);  // the root, once
}

TEST(CmnWalk, WrongNodeTypes) {
  Mesh m;
  m.img.regs[0x80] = 0x0100'0003;  // a third root child...
  m.img.regs[0x110] = 0x30000;     // ...is a DTC, not an XP
  m.img.regs[0x30000] = node_info(0x3, 0x40, 1);
  m.img.regs[0x18000] = node_info(0x6, 0x1, 0);  // an XP under an XP
  m.img.regs[0x24000] = ~0ull;                   // nothing answers
  m.walk();
  auto all = m.all();
  EXPECT_NE(all.find("node @0x30000: type 0x3 is not a crosspoint: ignored"), std::string::npos) << all;
  EXPECT_NE(all.find("node @0x18000: type 0x6 is not a device node type"), std::string::npos) << all;
  EXPECT_NE(all.find("node @0x24000: node_info reads all ones"), std::string::npos) << all;
  Mesh root;
  root.img.regs[0x0] = node_info(0x6, 0, 0);
  root.walk();
  EXPECT_FALSE(root.u.walked);
  EXPECT_EQ(root.img.reads.size(), 1u);
}

TEST(CmnWalk, UnknownPartsAndMismatchedFirmware) {
  Mesh unknown;
  unknown.img.regs[0x8] = 0x0000'0004'0000'003e;  // 0x43e: CMN S3, whose layout pmukit does not walk
  unknown.walk();
  EXPECT_FALSE(unknown.u.walked);
  EXPECT_EQ(unknown.img.reads.size(), 3u);
  EXPECT_NE(unknown.all().find("part number 0x43e is no CMN part pmukit knows"), std::string::npos);
  Mesh mismatch;
  mismatch.u.firmware_part = 0x436;  // ARMHC650, but the part reads CMN-700
  mismatch.walk();
  EXPECT_TRUE(mismatch.u.walked);
  EXPECT_NE(mismatch.all().find("expected part number 0x436, found 0x43c"), std::string::npos);
}

// por_info_global bit 44: Linux refuses the mesh; pmukit reads the crosspoints and nothing behind
// their ports.
TEST(CmnWalk, DeviceIsolationReadsNoDeviceNode) {
  Mesh m;
  m.img.regs[0x900] = 1ull << 44;
  for (std::uint64_t b : {0x14000, 0x18000, 0x24000}) m.img.forbidden.insert(b);
  m.walk();
  EXPECT_TRUE(m.u.device_isolation);
  EXPECT_EQ(m.u.nodes.size(), 2u);
  EXPECT_EQ(m.u.skipped.size(), 4u);
}

// CMN-600 child offsets are 28 bits (cmn-tools); the same pointer is 30 bits on CMN-700.
TEST(CmnWalk, ChildOffsetWidthIsPerPart) {
  Mesh m600;
  m600.img.regs[0x8] = 0x0000'0004'0000'0034;  // part 0x434: CMN-600
  m600.img.regs[0x10108] = 0x1001'8000;        // bit 28 is above the offset: 0x18000
  m600.walk();
  EXPECT_EQ(m600.u.nodes.size(), 5u);
  Mesh m700;
  m700.img.regs[0x10108] = 0x1001'8000;  // 0x10018000: outside the 4 MiB region
  m700.walk();
  EXPECT_EQ(m700.u.nodes.size(), 4u);
}

// The XP's DTC domain: por_dtm_unit_info [1:0] at 0x910 on CMN-650, 0x960 on CMN-700; CMN-600 has
// none and nothing is read for it (arm_cmn_dtc_domain()). CMN-600 and CMN-650 XPs have connect
// info for ports 0 and 1 only (arm_cmn_device_connect_info()).
TEST(CmnWalk, DtcDomainAndConnectInfoRegistersArePerPart) {
  auto reads_at = [](const Mesh& m, std::uint64_t off) {
    return std::count(m.img.reads.begin(), m.img.reads.end(), off);
  };
  Mesh m650;
  m650.img.regs[0x8] = 0x0000'0004'0000'0036;  // part 0x436: CMN-650
  m650.img.regs[0x20910] = 1;                  // XP (1,0) in domain 1
  m650.walk();
  EXPECT_EQ(reads_at(m650, 0x20910), 1);
  EXPECT_EQ(reads_at(m650, 0x20960), 0);
  EXPECT_EQ(reads_at(m650, 0x20018), 0);  // port 2's connect info
  EXPECT_EQ(m650.u.nodes[m650.u.xps[1].node].dtc, 1);
  Mesh m600;
  m600.img.regs[0x8] = 0x0000'0004'0000'0034;  // part 0x434: CMN-600
  m600.walk();
  EXPECT_EQ(reads_at(m600, 0x20910) + reads_at(m600, 0x20960), 0);
  EXPECT_EQ(m600.u.nodes[m600.u.xps[1].node].dtc, 0);  // one DTC: domain 0
  Mesh m700;
  m700.img.regs[0x20960] = 0x3;
  m700.walk();
  EXPECT_EQ(m700.u.nodes[m700.u.xps[1].node].dtc, 3);
  EXPECT_NE(m700.all().find("XP 0x20 is in DTC domain 3, but the mesh has 1 DTC node(s)"), std::string::npos)
      << m700.all();
}
