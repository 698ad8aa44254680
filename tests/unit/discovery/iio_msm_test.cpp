// Intel IIO stack mapping on Sapphire/Emerald Rapids and Granite Rapids/Sierra Forest (the MSM
// CPUBUSNO route), from hand-built config spaces. Offsets and tables are literals from PCM
// (utils.cpp get_cpu_bus, types.h SPR_MSM_*, pcm-iio-topology.cpp EagleStreamPlatformMapping and
// BirchStreamPlatform), cited at each use.
#include <gtest/gtest.h>

#include "iio_fixture.h"
#include "pmukit/access/pci_access.h"

using namespace pmukit;
using namespace pmukit::test;

namespace {

// MSM 8086:09a6: CPUBUSNO_VALID at 0x1a0, CPUBUSNO0-3 at 0x190-0x19c, CPUBUSNO4-7 at 0x1c0-0x1cc,
// entry i in byte i % 4 of dword i / 4 (SPR_MSM_REG_CPUBUSNO_VALID_OFFSET, ..._CPUBUSNO0_OFFSET,
// ..._CPUBUSNO4_OFFSET; getRootBuses). Unset dwords are 0.
json msm(const std::string& bdf, std::uint32_t valid, std::map<unsigned, std::uint32_t> busno, int node) {
  std::map<unsigned, std::uint32_t> regs = {{0x1a0, valid}};
  for (unsigned k = 0; k < 4; ++k) {
    regs[0x190 + 4 * k] = 0;
    regs[0x1c0 + 4 * k] = 0;
  }
  for (const auto& [at, v] : busno) regs[at] = v;
  return reg_device(bdf, "09a6", regs, node);
}

// Sapphire Rapids, socket 0 in domain 0: entries 0 (bus 00), 1 (1d), 2 (3b), 6 (7f, which no SPR
// table lists) and 8 (59); socket 1 in domain 1: entry 1 (bus 81). CAPID4 of the PCU 8086:325b at
// device 0x1e function 3, offset 0x94, bits 7:6 = the chop (SPR_CAPID4_OFFSET,
// SPR_CAPID4_GET_PHYSICAL_CHOP). The package is SAD_CONTROL_CFG (0x3f4) bits 3:0 of device 0
// function 0 on the first valid entry's bus.
json spr(int model, std::optional<std::uint32_t> capid4) {
  json d = json::array(
      {msm("0000:1d:03.0", 0x147, {{0x190, 0x003b1d00}, {0x194, 0x007f0000}, {0x198, 0x00000059}}, 0),
       reg_device("0000:00:00.0", "09a2", {{0x3f4, 0x00}}), root_port("0000:3b:08.0", "8086:352a", 0x3c, 0x3c),
       endpoint("0000:3c:00.0", "8086:1593", "0x020000"), endpoint("0000:5b:00.0", "8086:4940", "0x0b4000", "rciep"),
       endpoint("0000:5c:00.0", "8086:2710", "0x0b4000", "rciep"),
       endpoint("0000:59:01.0", "8086:0b25", "0x088000", "rciep"),
       endpoint("0000:7f:0c.0", "8086:324a", "0x088000", "rciep"), msm("0001:80:03.0", 0x2, {{0x190, 0x00008100}}, 1),
       reg_device("0001:81:00.0", "09a2", {{0x3f4, 0x31}}), root_port("0001:81:01.0", "8086:352a", 0x82, 0x82),
       endpoint("0001:82:00.0", "144d:a824")});
  if (capid4) d.push_back(reg_device("0000:7f:1e.3", "325b", {{0x94, *capid4}}, 0));
  return iio_machine(model, 2, d);
}

}  // namespace

TEST(IioSpr, XccTableFromTheDieChopAndStacksInEveryDomain) {
  IioMapped m(spr(143, 0xd2));  // chop 0b11 (XCC), with other CAPID4 bits set
  EXPECT_NE(m.t.table_source.find("xcc table: die chop 0b11 from PCU 0000:7f:1e.3"), std::string::npos);
  // spr_xcc_sad_to_pmu_id_mapping: 0 -> 1 (DMI), 1 -> 2, 2 -> 4, 8 -> 0 (IDX0).
  EXPECT_EQ(m.stack(0, 0)->pmu, 1u);
  EXPECT_EQ(m.stack(0, 1)->pmu, 2u);
  EXPECT_EQ(m.stack(0, 2)->pmu, 4u);
  EXPECT_EQ(m.stack(0, 8)->pmu, 0u);
  // The package of socket 1's stacks comes from 0001:81:00.0 (SAD_CONTROL_CFG 0x31: socket 1).
  ASSERT_NE(m.stack(1, 1), nullptr) << m.warnings();
  EXPECT_EQ(m.stack(1, 1)->domain, 1u);
  EXPECT_EQ(m.stack(1, 1)->root_bus, 0x81);
  // One PCU read, then per MSM: CPUBUSNO_VALID, eight CPUBUSNO dwords, one SAD_CONTROL_CFG.
  EXPECT_EQ(m.t.config_reads, 1u + 2 * (1 + 8 + 1));
  // Entry 6 is valid but SPR XCC maps no PMU to it (PCM: "Cannot map CPU bus 6 to IO PMU ID").
  EXPECT_TRUE(m.warned("0000:1d:03.0 CPUBUSNO @0x194 byte 2 (root bus 0000:7f, socket 0): entry 6 is in use but the "
                       "spr xcc table lists no stack for it"))
      << m.warnings();
  EXPECT_EQ(m.t.warnings.size(), 1u) << m.warnings();
}

TEST(IioSpr, XccPartsOfRootPortsAndAccelerators) {
  IioMapped m(spr(143, 0xc0));
  // PCIe stacks: root ports at devices 1-8, part = device - 1 (eagleStreamPciStackProbe).
  auto nic = m.map("0000:3c:00.0");
  EXPECT_EQ(nic.pmu, "uncore_iio_4");
  EXPECT_EQ(nic.parts, std::vector<unsigned>{7});
  EXPECT_EQ(nic.ch_mask, 0x80u);
  EXPECT_EQ(nic.filter_config, 0x0007080000000000ull);  // ch_mask config:36-47, fc_mask config:48-50
  // Accelerator stack (root bus 59 and the three after it): QAT part 4, HQM part 5 on XCC
  // (SPR_XCC_QAT_PART_ID, SPR_XCC_HQM_PART_ID), DSA parts 0-2.
  EXPECT_EQ(m.map("0000:5b:00.0").parts, std::vector<unsigned>{4});
  EXPECT_EQ(m.map("0000:5c:00.0").parts, std::vector<unsigned>{5});
  auto dsa = m.map("0000:59:01.0");
  EXPECT_EQ(dsa.pmu, "uncore_iio_0");
  EXPECT_EQ(dsa.parts, (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(dsa.ch_mask, 0x7u);
  EXPECT_EQ(m.map("0001:82:00.0").pmu, "uncore_iio_2");
  EXPECT_EQ(m.map("0001:82:00.0").stack->socket, 1);
  auto stray = m.map("0000:7f:0c.0");
  EXPECT_EQ(stray.stack, nullptr);
  EXPECT_NE(stray.error.find("which the table does not list"), std::string::npos) << stray.error;
}

TEST(IioSpr, MccChopPicksTheMccTable) {
  IioMapped m(spr(143, 0x40));  // chop 0b01
  // spr_mcc_sad_to_pmu_id_mapping: 0 -> 0, 2 -> 2, 8 -> 3; QAT part 5, HQM part 4 on MCC.
  EXPECT_EQ(m.stack(0, 0)->pmu, 0u);
  EXPECT_EQ(m.map("0000:3c:00.0").pmu, "uncore_iio_2");
  EXPECT_EQ(m.map("0000:5b:00.0").pmu, "uncore_iio_3");
  EXPECT_EQ(m.map("0000:5b:00.0").parts, std::vector<unsigned>{5});
  EXPECT_EQ(m.map("0000:5c:00.0").parts, std::vector<unsigned>{4});
}

TEST(IioSpr, UnknownOrMissingChopLeavesStacksWithoutPmus) {
  IioMapped odd(spr(143, 0x80));  // chop 0b10: neither XCC nor MCC
  EXPECT_TRUE(odd.warned("die chop 0b10 selects none of the spr tables")) << odd.warnings();
  EXPECT_FALSE(odd.stack(0, 2)->pmu);
  EXPECT_EQ(odd.map("0000:3c:00.0").stack, nullptr);
  IioMapped none(spr(143, std::nullopt));
  EXPECT_TRUE(none.warned("no readable PCU 8086:325b at device 0x1e function 3")) << none.warnings();
}

TEST(IioEmr, EmrHasItsOwnTable) {
  // emr_sad_to_pmu_id_mapping: 0 -> 7 (DMI), 1 -> 1, 2 -> 2, 8 -> 0.
  IioMapped m(spr(207, 0xc0));
  EXPECT_EQ(m.stack(0, 0)->pmu, 7u);
  EXPECT_EQ(m.map("0000:3c:00.0").pmu, "uncore_iio_2");
  EXPECT_EQ(m.map("0001:82:00.0").pmu, "uncore_iio_1");
}

namespace {

// Granite Rapids: entries 12 (bus 70, HC1), 13 (71, its QAT bus), 29 (20, PCIe4) and 30 (00, UBOX A).
json gnr(int model, bool second_msm = false) {
  json d = json::array(
      {msm("0000:00:03.0", (1u << 12) | (1u << 13) | (1u << 29) | (1u << 30),
           {{0x19c, 0x00007170}, {0x1cc, 0x00002000}}, 0),
       reg_device("0000:70:00.0", "09a2", {{0x3f4, 0x60}}), endpoint("0000:70:01.0", "8086:0b25", "0x088000", "rciep"),
       endpoint("0000:71:00.0", "8086:4944", "0x0b4000", "rciep"), root_port("0000:20:08.0", "8086:0db0", 0x21, 0x21),
       endpoint("0000:21:00.0", "144d:a80a"), endpoint("0000:00:1f.0", "8086:0001", "0x088000", "rciep")});
  if (second_msm) {
    d.push_back(msm("0000:40:03.0", 1u << 29, {{0x1cc, 0x00002400}}, 0));
    d.push_back(reg_device("0000:24:00.0", "09a2", {{0x3f4, 0x00}}));
  }
  return iio_machine(model, 1, d);
}

}  // namespace

TEST(IioGnr, BirchStreamTableRootPortsFrom2AndAcceleratorBuses) {
  for (int model : {173, 175}) {  // GNR and SRF share BirchStreamPlatform
    IioMapped m(gnr(model));
    // srf_sad_to_pmu_id_mapping: SAD 29 -> PMU 11 (SRF_PE4), SAD 12 -> PMU 6 (SRF_HC1).
    EXPECT_EQ(m.stack(0, 29)->pmu, 11u);
    EXPECT_EQ(m.stack(0, 12)->pmu, 6u);
    // Root ports at devices 2-8, part = device - 2 (birchStreamPciStackProbe).
    auto nvme = m.map("0000:21:00.0");
    EXPECT_EQ(nvme.pmu, "uncore_iio_11");
    EXPECT_EQ(nvme.parts, std::vector<unsigned>{6});
    // DSA at device 1 of the HC root bus is part 0; QAT at device 0 of the next bus part 4
    // (SRF_DSA_IAX_PART_NUMBER, SRF_QAT_PART_NUMBER), counted by the HC stack's PMU.
    EXPECT_EQ(m.map("0000:70:01.0").parts, std::vector<unsigned>{0});
    auto qat = m.map("0000:71:00.0");
    EXPECT_EQ(qat.pmu, "uncore_iio_6");
    EXPECT_EQ(qat.parts, std::vector<unsigned>{4});
    // UBOX buses have no IIO PMU.
    auto ubox = m.map("0000:00:1f.0");
    EXPECT_EQ(ubox.stack, nullptr);
    EXPECT_NE(ubox.error.find("which has no IIO PMU"), std::string::npos) << ubox.error;
    EXPECT_TRUE(m.t.warnings.empty()) << m.warnings();
  }
}

TEST(IioGnr, TwoMsmsThatDisagreeAreNamed) {
  IioMapped m(gnr(173, true));
  EXPECT_TRUE(m.warned("socket 0 entry 29: 0000:00:03.0 CPUBUSNO @0x1cc byte 1 gives root bus 0000:20, 0000:40:03.0 "
                       "CPUBUSNO @0x1cc byte 1 gives 0000:24"))
      << m.warnings();
  EXPECT_EQ(m.map("0000:21:00.0").pmu, "uncore_iio_11");
}

TEST(IioGnr, MappingReadsEachRegisterOnce) {
  IioMapped m(gnr(173));
  std::uint64_t before = m.machine->pci().total_config_reads();
  for (const auto& d : m.devices) discovery::map_iio_device(d, m.devices, m.t, nullptr);
  EXPECT_EQ(m.machine->pci().total_config_reads(), before);  // attribution reads nothing
  EXPECT_EQ(m.t.config_reads, 1u + 8 + 1);                   // valid, eight CPUBUSNO, one SAD_CONTROL_CFG
}
