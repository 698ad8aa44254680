// The bundled yitian machine's CMN-700 image holds what a discovery tool reads, consistently: Arm's
// cmn-tools (cmn_discover.py, cmn_list.py) take the CHI issue from por_info_global and stop without
// it, and count the devices behind a port's CAL from por_mxp_p<n>_info. Offsets and fields are the
// CMN-700 TRM's register summary (as Arm's cmn-tools data/regdefs/cmn700-r1.regdefs lists them):
// por_info_global @0x900 of the configuration node, chix_ver [62:60], mxp_multiple_dtm_en [63],
// reset value 0x4014000003303008; por_info_global_1 @0x908 reset 0x24205; periph_id_4_5 @0x18
// 0xc4; component_id_0_1 @0x28 0xf00000000d, component_id_2_3 @0x30 0xb100000005; per XP
// por_mxp_device_port_connect_info_p<n> @0x8 + 8n (device_type [4:0], cal_connected [7]),
// por_mxp_p<n>_info @0x900 + 0x10n (num_dev [2:0]), por_mxp_p<n>_info_1 @0x908 + 0x10n (reset
// 0x1111), por_dtm_unit_info @0x960 (dtc_domain [1:0]); HN-F por_hnf_ppu_pwsr @0x1c08 (a powered-up
// HN-F: ON 8 in [3:0], FAM 3 in [7:4], dynamic [8] -- cmn-tools' expected 0x138).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "pmukit/discovery/cmn_unit.h"
#include "pmukit/pmu/register_io.h"
#include "support/bundled_rig.h"

using namespace pmukit;

TEST(CmnImage, YitianHoldsWhatADiscoveryToolReads) {
  test::BundledRig m("yitian");
  const discovery::CmnUnit* u = nullptr;
  for (const auto& unit : m.found.inventory.units)
    if (const auto* c = unit.as<discovery::CmnUnit>()) u = c;
  ASSERT_NE(u, nullptr);
  pmu::RegisterIo io(*m.machine);
  io.map_block(u->base, u->size);
  auto r = [&](std::uint64_t off) { return io.read(pmu::mmio64(u->base + off, true)); };
  EXPECT_EQ(r(u->root_offset + 0x900), 0x4014000003303008u);
  EXPECT_EQ(r(u->root_offset + 0x900) >> 60 & 7, 4u);  // CHI-D: cmn-tools needs 2 (B) or more
  EXPECT_EQ(r(u->root_offset + 0x908), 0x24205u);
  EXPECT_EQ(r(u->root_offset + 0x18), 0xc4u);
  EXPECT_EQ(r(u->root_offset + 0x28), 0xf00000000du);
  EXPECT_EQ(r(u->root_offset + 0x30), 0xb100000005u);
  unsigned cal_ports = 0, connected = 0;
  std::string wrong;
  for (const auto& xp : u->xps) {
    const auto& n = u->nodes[xp.node];
    for (unsigned p = 0; p < 2; ++p) {
      const std::uint64_t ci = r(n.offset + 0x8 + 8 * p), info = r(n.offset + 0x900 + 0x10 * p);
      const unsigned want = (ci & 0x1f) == 0 ? 0 : ci >> 7 & 1 ? 2 : 1;
      cal_ports += ci >> 7 & 1, connected += (ci & 0x1f) != 0;
      if ((info & 7) != want || r(n.offset + 0x908 + 0x10 * p) != 0x1111)
        wrong += fmt::format("XP ({},{}) P{}: connect info {:#x}, port info {:#x}\n", n.x, n.y, p, ci, info);
    }
    if ((r(n.offset + 0x960) & 3) != static_cast<unsigned>(n.dtc))
      wrong += fmt::format("XP ({},{}): por_dtm_unit_info {:#x}, domain {}\n", n.x, n.y, r(n.offset + 0x960), n.dtc);
  }
  EXPECT_EQ(wrong, "");
  EXPECT_EQ(cal_ports, 32u);  // the CPU ports of rows 1-8: RN-F_E_E behind a CAL2, two RN-SAMs each
  EXPECT_EQ(connected, 80u);  // every port of the 40 XPs
  unsigned hnf = 0;
  for (const auto& n : u->nodes)
    if (n.type == 0x5) {
      ++hnf;
      EXPECT_EQ(r(n.offset + 0x1c08), 0x138u) << n.id;
    }
  EXPECT_EQ(hnf, 28u);
}
