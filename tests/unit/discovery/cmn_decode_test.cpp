// Arm CMN mesh decoding: mesh size, (x, y, port, device) of node ids, DTMs and DTC domains, with
// every expected value worked by hand from Linux drivers/perf/arm-cmn.c:
//   mesh_x     = logical id of the XP whose node id is 1 << 3 (arm_cmn_discover()), else N x 1
//   xy bits    = fls((mesh_x - 1) | (mesh_y - 1) | 2)   (arm_cmn_xyidbits(), Linux <= 6.11; the
//                hardware's 2-bit minimum, as Arm SCP-firmware cmn700.c and cmn-tools have it)
//   port, dev  = per XP (Linux 6.12 "Refactor node ID handling. Again."): an XP with a port above 1
//                connected has 2 port bits over 1 device bit, others 1 over 2; a 1x1 mesh 3 over 2
//   x, y       = (id >> 3) >> bits, (id >> 3) & ((1 << bits) - 1)   (arm_cmn_node_to_xp())
//   DTM        = the XP's DTM 0, + port / 2 with multiple DTMs (arm_cmn_init_dtcs())
#include <gtest/gtest.h>

#include "pmukit/families/cmn/cmn_discovery.h"
#include "pmukit/families/cmn/cmn_mesh.h"
#include "pmukit/families/cmn/cmn_unit.h"
#include "pmukit/platform/database.h"

using namespace pmukit;
using discovery::CmnNode;
using discovery::CmnUnit;

namespace {

// A mesh as the walk leaves it: XPs (id, logical id, connected ports) and their device nodes.
struct MeshFixture {
  CmnUnit u;
  std::vector<std::string> problems;

  unsigned xp(std::uint16_t id, std::uint16_t logid, std::vector<unsigned> ports = {0, 1}) {
    CmnNode n;
    n.type = 0x6;  // CMN_TYPE_XP
    n.id = id;
    n.logid = logid;
    n.offset = 0x100000ull * (logid + 1);
    u.nodes.push_back(n);
    discovery::CmnXp x;
    x.node = static_cast<unsigned>(u.nodes.size() - 1);
    for (unsigned p : ports)
      x.ports.push_back({p, RegValue<regs::cmn::ConnectInfo>{0x1e}, 0x1e, false});  // something connected
    u.xps.push_back(x);
    return static_cast<unsigned>(u.xps.size() - 1);
  }
  const CmnNode& dev(unsigned xp_index, std::uint16_t type, std::uint16_t id, std::uint16_t logid = 0) {
    CmnNode n;
    n.type = type;
    n.id = id;
    n.logid = logid;
    n.offset = u.nodes[u.xps[xp_index].node].offset + 0x4000 * (u.xps[xp_index].devices.size() + 1);
    u.nodes.push_back(n);
    u.xps[xp_index].devices.push_back(static_cast<unsigned>(u.nodes.size() - 1));
    return u.nodes.back();
  }
  // A full W x H mesh of two-port XPs with row-major logical ids and 2-bit..4-bit coordinates.
  void grid(unsigned w, unsigned h, unsigned bits) {
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x)
        xp(static_cast<std::uint16_t>((x << bits | y) << 3), static_cast<std::uint16_t>(y * w + x));
  }
  const CmnNode* find(std::uint16_t id, std::uint16_t type) const {
    for (const auto& n : u.nodes)
      if (n.id == id && n.type == type) return &n;
    return nullptr;
  }
  void decode(std::uint16_t part = 0x43c) {
    decode_cmn_mesh(platform::Database::builtin().soc().cmn->part(part), u, problems);
  }
};

std::tuple<unsigned, unsigned, unsigned, unsigned> xypd(const CmnNode& n) {
  return {n.x, n.y, n.port, n.dev};
}

}  // namespace

// The Alibaba Yitian 710 CMN guide's CCLA nodes on a 4 x 10 mesh: fls(3 | 9 | 2) = 4 coordinate bits.
// 0x1b5 = 0b1_1011_0101: device 0b01 = 1, port bit 2 = 1; 0x1b5 >> 3 = 54 = 0b0011_0110: x = 3, y = 6.
TEST(CmnDecode, YitianGuideCclaNodesOnA4x10Mesh) {
  MeshFixture m;
  m.grid(4, 10, 4);
  struct Case {
    std::uint16_t id;
    unsigned x, y, port, dev;
  } cases[] = {{0x1b5, 3, 6, 1, 1}, {0x1ad, 3, 5, 1, 1}, {0x1a5, 3, 4, 1, 1}, {0x19d, 3, 3, 1, 1},
               {0x1c9, 3, 9, 0, 1}, {0x181, 3, 0, 0, 1}, {0x149, 2, 9, 0, 1}, {0x101, 2, 0, 0, 1}};
  for (const auto& c : cases) m.dev(c.y * 4 + c.x, 0x105, c.id);
  m.dev(0, 0x3, 0x00);  // a DTC, so that the mesh is complete
  m.decode();
  EXPECT_TRUE(m.problems.empty()) << m.problems.front();
  EXPECT_EQ(m.u.mesh_x, 4u);
  EXPECT_EQ(m.u.mesh_y, 10u);
  EXPECT_EQ(m.u.xy_bits, 4u);
  for (const auto& c : cases) {
    const auto* n = m.find(c.id, 0x105);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(xypd(*n), std::make_tuple(c.x, c.y, c.port, c.dev)) << std::hex << c.id;
  }
}

// 5 x 3: the XP at (0,1) has node id 8 and logical id 5, so mesh_x = 5, mesh_y = 15 / 5 = 3;
// fls(4 | 2 | 2) = 3 bits. XP (4,2) is (4 << 3 | 2) << 3 = 0x110, logical id 14.
TEST(CmnDecode, MeshWidthFromTheXpAtZeroOne) {
  MeshFixture m;
  m.grid(5, 3, 3);
  m.dev(14, 0x5, 0x114);  // 0x114 = 0x110 | 0b100: port 1, device 0
  m.decode();
  EXPECT_EQ(m.u.mesh_x, 5u);
  EXPECT_EQ(m.u.mesh_y, 3u);
  EXPECT_EQ(m.u.xy_bits, 3u);
  EXPECT_EQ(xypd(*m.find(0x114, 0x5)), std::make_tuple(4u, 2u, 1u, 0u));
  EXPECT_EQ(xypd(*m.find(0x110, 0x6)), std::make_tuple(4u, 2u, 0u, 0u));
}

// 3 x 1: no XP has node id 8, so the mesh is N x 1 (arm_cmn_discover()); fls(2 | 0 | 2) = 2 bits:
// XP (2,0) = (2 << 2) << 3 = 0x40.
TEST(CmnDecode, NoXpAtZeroOneMeansOneRow) {
  MeshFixture m;
  m.xp(0x00, 0);
  m.xp(0x20, 1);
  m.xp(0x40, 2);
  m.dev(2, 0x4, 0x44);  // port 1, device 0 of XP (2,0)
  m.decode();
  EXPECT_EQ(m.u.mesh_x, 3u);
  EXPECT_EQ(m.u.mesh_y, 1u);
  EXPECT_EQ(xypd(*m.find(0x44, 0x4)), std::make_tuple(2u, 0u, 1u, 0u));
}

// 12 x 12, the largest mesh: fls(11 | 11 | 2) = 4 bits. XP (11,11) = (11 << 4 | 11) << 3 = 0x5d8;
// 0x5dd = 0x5d8 | 0b101: port 1, device 1.
TEST(CmnDecode, LargestMesh) {
  MeshFixture m;
  m.grid(12, 12, 4);
  m.dev(143, 0x5, 0x5dd);
  m.dev(0, 0x3, 0x00);
  m.decode();
  EXPECT_EQ(m.u.xy_bits, 4u);
  EXPECT_EQ(xypd(*m.find(0x5dd, 0x5)), std::make_tuple(11u, 11u, 1u, 1u));
  EXPECT_TRUE(m.problems.empty()) << m.problems.front();
}

// 2 x 2 (a CMN-600 mesh like N1SDP's): fls(1 | 1 | 2) = 2 bits, as the hardware encodes it; 0x24 =
// 0b100_100: (4 >> 2, 4 & 3) = (1,0), port 1, device 0. Linux 6.12 computes fls(1 | 1) = 1 bit here
// and would place this node at x = 2, outside the mesh: pmukit keeps the TRM's minimum.
TEST(CmnDecode, SmallMeshKeepsTwoCoordinateBits) {
  MeshFixture m;
  m.grid(2, 2, 2);
  m.dev(1, 0xa, 0x24);
  m.dev(0, 0x3, 0x00);
  m.decode(0x434);
  EXPECT_EQ(m.u.xy_bits, 2u);
  EXPECT_EQ(xypd(*m.find(0x24, 0xa)), std::make_tuple(1u, 0u, 1u, 0u));
  EXPECT_TRUE(m.problems.empty()) << m.problems.front();
}

// The same low bits mean different ports on a 3-port and a 2-port XP (Linux 6.12 found the "extra
// device ports" format is per XP). 6 x 6: fls(5 | 5 | 2) = 3 bits. XP (4,2) = (4 << 3 | 2) << 3 =
// 0x110 uses port 2; XP (3,2) = (3 << 3 | 2) << 3 = 0xd0 uses ports 0 and 1 only.
// 0x115 = 0x110 | 0b101: 2 port bits over 1 device bit -> port 0b10 = 2, device 1.
// 0xd5  = 0xd0  | 0b101: 1 port bit over 2 device bits -> port 1, device 0b01 = 1.
TEST(CmnDecode, PortAndDeviceBitsArePerXp) {
  MeshFixture m;
  for (unsigned y = 0; y < 6; ++y)
    for (unsigned x = 0; x < 6; ++x)
      m.xp(static_cast<std::uint16_t>((x << 3 | y) << 3), static_cast<std::uint16_t>(y * 6 + x),
           x == 4 && y == 2 ? std::vector<unsigned>{0, 1, 2} : std::vector<unsigned>{0, 1});
  m.dev(2 * 6 + 4, 0x5, 0x115);
  m.dev(2 * 6 + 3, 0x5, 0xd5);
  m.decode();
  EXPECT_EQ(xypd(*m.find(0x115, 0x5)), std::make_tuple(4u, 2u, 2u, 1u));
  EXPECT_EQ(xypd(*m.find(0xd5, 0x5)), std::make_tuple(3u, 2u, 1u, 1u));
  EXPECT_EQ(m.u.xps[2 * 6 + 4].portid_bits, 2u);
  EXPECT_EQ(m.u.xps[2 * 6 + 3].portid_bits, 1u);
  EXPECT_EQ(m.u.ports_used, 0x7);
}

// 1 x 1: 3 port bits over 2 device bits (CMN_NODEID_1x1_PID): 0x0d = 0b011_01 -> port 3, device 1.
TEST(CmnDecode, SingleXpMesh) {
  MeshFixture m;
  m.xp(0x0, 0, {0, 1, 2, 3});
  m.dev(0, 0x4, 0x0d);
  m.decode();
  EXPECT_EQ(m.u.mesh_x, 1u);
  EXPECT_EQ(xypd(*m.find(0x0d, 0x4)), std::make_tuple(0u, 0u, 3u, 1u));
}

// Multiple DTMs (por_info_global bit 63): an XP with a port above 1 connected gets DTM 1 at PMU page
// + 0x200, one above 3 also DTM 2 at + 0x400 (arm_cmn_discover()); a device counts in DTM port / 2
// of its XP (arm_cmn_init_dtcs()). Node id 0x06 on the 5-port XP: 2 port bits over 1 device bit ->
// port 0b11 = 3, device 0 -> DTM 1.
TEST(CmnDecode, MultipleDtmsServePortPairs) {
  MeshFixture m;
  m.u.multi_dtm = true;
  m.xp(0x00, 0, {0, 1, 2, 3, 4});
  m.xp(0x20, 1, {0, 1});
  m.dev(0, 0x5, 0x06);
  m.dev(0, 0x5, 0x02);  // port 1, device 0 -> DTM 0
  m.decode();
  const auto& xp0 = m.u.xps[0];
  ASSERT_EQ(xp0.dtms.size(), 3u);
  EXPECT_EQ(m.u.dtms[xp0.dtms[0]].offset, m.u.nodes[xp0.node].offset + 0x2000);
  EXPECT_EQ(m.u.dtms[xp0.dtms[1]].offset, m.u.nodes[xp0.node].offset + 0x2000 + 0x200);
  EXPECT_EQ(m.u.dtms[xp0.dtms[2]].offset, m.u.nodes[xp0.node].offset + 0x2000 + 0x400);
  EXPECT_EQ(m.u.xps[1].dtms.size(), 1u);
  EXPECT_EQ(xypd(*m.find(0x06, 0x5)), std::make_tuple(0u, 0u, 3u, 0u));
  EXPECT_EQ(m.find(0x06, 0x5)->dtm, static_cast<int>(xp0.dtms[1]));
  EXPECT_EQ(m.find(0x02, 0x5)->dtm, static_cast<int>(xp0.dtms[0]));
  MeshFixture single;  // without the bit, one DTM per XP whatever its ports
  single.xp(0x00, 0, {0, 1, 2, 3, 4});
  single.decode();
  EXPECT_EQ(single.u.xps[0].dtms.size(), 1u);
}

// DTCs are numbered in logical id order (arm_cmn_init_dtcs() sorts nodes by type, then logical id);
// a device is in its XP's domain. CMN-600 XPs have no domain register: with two DTCs it is unknown.
TEST(CmnDecode, DtcDomains) {
  MeshFixture m;
  m.xp(0x00, 0);
  m.xp(0x20, 1);
  m.u.nodes[m.u.xps[0].node].dtc = 0;
  m.u.nodes[m.u.xps[1].node].dtc = 1;
  m.dev(1, 0x3, 0x20, 1);  // DTC 1 on XP (1,0)
  m.dev(0, 0x3, 0x00, 0);  // DTC 0 on XP (0,0)
  m.dev(1, 0x5, 0x24);
  m.decode();
  ASSERT_EQ(m.u.dtcs.size(), 2u);
  EXPECT_EQ(m.u.nodes[m.u.dtcs[0].node].id, 0x00);
  EXPECT_EQ(m.u.nodes[m.u.dtcs[1].node].id, 0x20);
  EXPECT_EQ(m.find(0x24, 0x5)->dtc, 1);
  EXPECT_TRUE(m.problems.empty()) << m.problems.front();
  MeshFixture six;
  six.xp(0x00, 0);
  six.xp(0x20, 1);
  six.dev(0, 0x3, 0x00, 0);
  six.dev(1, 0x3, 0x20, 1);
  six.decode(0x434);
  EXPECT_EQ(six.find(0x20, 0x6)->dtc, -1);
  MeshFixture one;
  one.xp(0x00, 0);
  one.dev(0, 0x3, 0x00, 0);
  one.decode(0x434);
  EXPECT_EQ(one.find(0x00, 0x6)->dtc, 0);
}

TEST(CmnDecode, InconsistentTreesAreReported) {
  MeshFixture m;
  m.xp(0x00, 0);
  m.xp(0x20, 1);
  m.dev(0, 0x5, 0x24);  // a child of XP (0,0) whose id names XP (1,0)
  m.decode();
  ASSERT_EQ(m.problems.size(), 2u);  // and no DTC
  EXPECT_NE(m.problems[0].find("is a child of XP 0x0 but its id places it at (1,0)"), std::string::npos)
      << m.problems[0];
  MeshFixture w;
  w.xp(0x00, 0);
  w.xp(0x20, 2);  // (1,0) with logical id 2
  w.xp(0x08, 1);  // (0,1) with logical id 1: mesh_x = 1, but ids say 2 wide
  w.dev(0, 0x3, 0x00);
  w.decode();
  EXPECT_NE(w.problems[0].find("XP logical ids do not run row by row"), std::string::npos) << w.problems[0];
}
