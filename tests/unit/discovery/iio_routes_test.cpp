// Intel IIO stack mapping on Skylake-SP (UBOX CPUBUSNO), Ice Lake-SP/-D and Snow Ridge
// (SAD_CONTROL_CFG), from hand-built config spaces. Register offsets, values and the expected
// stack -> PMU numbers are literals from PCM pcm-iio-topology.cpp and Linux uncore_snbep.c, cited
// at each use; none come from pmukit's platform data.
#include <gtest/gtest.h>

#include "iio_fixture.h"

using namespace pmukit;
using namespace pmukit::test;

namespace {

// SKX as real machines place it (Linux boot logs: 08.0 [8086:2014], 08.2 [8086:2016]): the UBOX
// 8086:2014 at device 8 function 0 with the node ID registers, and at function 2 (PCM
// PurleyPlatformMapping reads SKX_UBOX_DEVICE_NUM 8, SKX_UBOX_FUNCTION_NUM 2 of the 2014's bus)
// CPUBUSNO at 0xcc (stacks 0-3) and 0xd0 (4-5), one
// byte per stack (PCM PurleyPlatformMapping: ROOT_BUSES_OFFSET 0xCC, SKX_BUS_NUM_STRIDE 8); the
// node id at 0xc0 bits 2:0 and GIDNIDMAP at 0xd4, 3 bits per socket (Linux SKX_CPUNODEID,
// SKX_GIDNIDMAP, NODE_ID_MASK, GIDNIDMAP()). The UBOX found first (bus 0x3a) has node id 5, which
// GIDNIDMAP 0x2a (group 0 = node 2, group 1 = node 5) puts on socket 1: not the order found.
json skx() {
  json ubox1 = reg_device("0000:3a:08.0", "2014", {{0xc0, 5}, {0xd4, 0x2a}});
  json buses1 = reg_device("0000:3a:08.2", "2016", {{0xcc, 0x4e443a30}, {0xd0, 0x00000058}});
  json ubox0 = reg_device("0000:85:08.0", "2014", {{0xc0, 2}, {0xd4, 0x2a}});
  json buses0 = reg_device("0000:85:08.2", "2016", {{0xcc, 0x008a8580}, {0xd0, 0x00009900}});
  return iio_machine(
      85, 2,
      json::array({ubox1, buses1, ubox0, buses0, root_port("0000:44:02.0", "8086:2032", 0x45, 0x45),
                   endpoint("0000:45:00.0", "144d:a80a"), root_port("0000:99:00.0", "8086:2030", 0x9a, 0x9a),
                   endpoint("0000:9a:00.0", "15b3:101d", "0x020000"),
                   endpoint("0000:85:00.0", "8086:2020", "0x060000", "rciep")}));
}

}  // namespace

TEST(IioSkx, StacksFromUboxCpubusnoWithSocketsFromGidnidmap) {
  IioMapped m(skx());
  // Linux skx_iio_topology_cb: stack i of a die is uncore_iio_i, its bus byte i of CPU_BUS_NUMBER.
  ASSERT_NE(m.stack(1, 2), nullptr) << m.warnings();
  EXPECT_EQ(m.stack(1, 2)->root_bus, 0x44);
  EXPECT_EQ(m.stack(1, 2)->pmu, 2u);
  EXPECT_EQ(m.stack(1, 2)->die, 1);
  EXPECT_EQ(m.stack(0, 5)->root_bus, 0x99);
  EXPECT_EQ(m.stack(0, 5)->pmu, 5u);
  // A zero bus is a missing stack except for stack 0 (skx_iio_mapping_visible, PCM "some IIO stack
  // does not exist"): socket 0 has no stacks 3 and 4, socket 1 no stack 5.
  EXPECT_EQ(m.stack(0, 3), nullptr);
  EXPECT_EQ(m.stack(0, 4), nullptr);
  EXPECT_EQ(m.stack(1, 5), nullptr);
  EXPECT_EQ(m.t.stacks.size(), 9u);
  // Four registers per UBOX, each read once.
  EXPECT_EQ(m.t.config_reads, 8u);
  EXPECT_TRUE(m.t.warnings.empty()) << m.warnings();
}

TEST(IioSkx, DeviceGetsItsRootPortsPartAndTheSkxFilterBits) {
  IioMapped m(skx());
  auto r = m.map("0000:45:00.0");
  ASSERT_NE(r.stack, nullptr) << r.error;
  EXPECT_EQ(r.stack->socket, 1);
  EXPECT_EQ(r.pmu, "uncore_iio_2");
  EXPECT_EQ(r.free_running, "uncore_iio_free_running_2");
  // Root port at device 2 is part 2 (PCM: part_id = devno); ch_mask = 1 << part, fc_mask 0x7
  // (opCode-6-85.txt); SKX formats ch_mask config:36-43, fc_mask config:44-46 (skx_uncore_iio).
  EXPECT_EQ(r.parts, std::vector<unsigned>{2});
  EXPECT_EQ(r.ch_mask, 0x4u);
  EXPECT_EQ(r.fc_mask, 0x7u);
  EXPECT_EQ(r.ch_mask_format, "config:36-43");
  EXPECT_EQ(r.fc_mask_format, "config:44-46");
  EXPECT_EQ(r.filter_config, 0x0000704000000000ull);
  ASSERT_EQ(r.filters.size(), 2u);
  EXPECT_EQ(r.filters[0].example, "uncore_iio_2/event=0x83,umask=0x01,ch_mask=0x4,fc_mask=0x7/");
  EXPECT_EQ(r.filters[1].example, "uncore_iio_free_running_2/bw_in_port2/");
  auto nic = m.map("0000:9a:00.0");
  EXPECT_EQ(nic.pmu, "uncore_iio_5");
  EXPECT_EQ(nic.parts, std::vector<unsigned>{0});
  EXPECT_EQ(nic.stack->socket, 0);
  // A type-0 function on a stack's root bus is no root port: the stack is known, no part is.
  auto host = m.map("0000:85:00.0");
  EXPECT_EQ(host.pmu, "uncore_iio_1");
  EXPECT_TRUE(host.parts.empty());
  EXPECT_NE(host.error.find("no ch_mask part selects it"), std::string::npos) << host.error;
}

TEST(IioSkx, LinuxDieFilesAgreeOrAreNamedInAWarning) {
  IioMapped agree(skx(), [](const std::filesystem::path& root) {
    kernel_die_file(root, 2, 1, "0000:44");
    kernel_die_file(root, 2, 0, "0000:8a");
  });
  EXPECT_TRUE(agree.t.warnings.empty()) << agree.warnings();
  EXPECT_EQ(agree.stack(1, 2)->kernel, "uncore_iio_2/die1 = 0000:44");
  IioMapped differ(skx(), [](const std::filesystem::path& root) {
    kernel_die_file(root, 2, 1, "0000:47");
    kernel_die_file(root, 2, 0, "0000:8a");
  });
  EXPECT_TRUE(differ.warned("Linux uncore_iio_2/die1 says 0000:47, but 0000:3a:08.2 CPUBUSNO @0xcc byte 2 gives "
                            "0000:44"))
      << differ.warnings();
  // Config space wins: the device stays on bus 0x44's stack.
  EXPECT_EQ(differ.map("0000:45:00.0").pmu, "uncore_iio_2");
}

TEST(IioSkx, WithoutConfigSpaceTheLinuxFilesAreTheRoute) {
  // Non-root readers see 64 bytes of config space: CPUBUSNO at 0xcc is out of reach.
  IioMapped m(skx(), [](const std::filesystem::path& root) {
    for (const char* ubox : {"0000:3a:08.2", "0000:85:08.2"})
      std::filesystem::resize_file(root / "sys/bus/pci/devices" / ubox / "config", 64);
    kernel_die_file(root, 2, 1, "0000:44");
    kernel_die_file(root, 5, 0, "0000:99");
  });
  EXPECT_EQ(m.t.route, "Linux uncore_iio_<n>/die<x> files");
  EXPECT_TRUE(m.warned("2 IIO mapping registers are beyond the readable config space (not root?): IIO stacks taken "
                       "from Linux uncore_iio_<n>/die<x> files"))
      << m.warnings();
  ASSERT_EQ(m.t.stacks.size(), 2u);
  auto r = m.map("0000:45:00.0");
  EXPECT_EQ(r.pmu, "uncore_iio_2");
  EXPECT_EQ(r.stack->socket, 1);
  EXPECT_EQ(r.parts, std::vector<unsigned>{2});
}

TEST(IioSkx, ALinuxStackConfigSpaceDoesNotShowIsNamed) {
  IioMapped m(skx(), [](const std::filesystem::path& root) { kernel_die_file(root, 4, 0, "0000:90"); });
  EXPECT_TRUE(m.warned("Linux uncore_iio_4/die0 = 0000:90, but config space shows no stack with that PMU on die 0"))
      << m.warnings();
}

// ICX: 8086:09a2 on every stack bus; SAD_CONTROL_CFG at 0x3f4, socket in bits 3:0 and the SAD
// stack id in bits 6:4 (Linux SNR_ICX_MESH2IIO_MMAP_DID, SNR_ICX_SAD_CONTROL_CFG,
// SAD_CONTROL_STACK_ID; PCM getSadIdRootBusMap).
TEST(IioIcx, SadStackIdsBecomePmusByTheIcxTable) {
  IioMapped m(iio_machine(
      106, 2,
      json::array(
          {reg_device("0000:17:00.0", "09a2", {{0x3f4, 0x10}}), root_port("0000:17:05.0", "8086:347d", 0x18, 0x18),
           endpoint("0000:18:00.0", "8086:0b60"), reg_device("0000:64:00.0", "09a2", {{0x3f4, 0x41}}),
           root_port("0000:64:03.0", "8086:347b", 0x65, 0x65), endpoint("0000:65:00.0", "15b3:101d", "0x020000"),
           reg_device("0000:c9:00.0", "09a2", {{0x3f4, 0x00}}),
           endpoint("0000:c9:01.0", "8086:0b00", "0x088000", "rciep")})));
  ASSERT_TRUE(m.t.warnings.empty()) << m.warnings();
  EXPECT_EQ(m.t.config_reads, 3u);
  // icx_sad_pmon_mapping / icx_sad_to_pmu_id_mapping: SAD 4 -> PMU 3, SAD 1 -> 0, SAD 0 -> 5.
  auto nic = m.map("0000:65:00.0");
  EXPECT_EQ(nic.stack->socket, 1);
  EXPECT_EQ(nic.pmu, "uncore_iio_3");
  // Root ports at devices 2-5, part = device - 2 (WhitleyPlatformMapping slot loop).
  EXPECT_EQ(nic.parts, std::vector<unsigned>{1});
  // ICX formats: ch_mask config:36-47, fc_mask config:48-50 (snr_uncore_iio_formats_attr).
  EXPECT_EQ(nic.ch_mask_format, "config:36-47");
  EXPECT_EQ(nic.filter_config, 0x0007002000000000ull);
  auto nvme = m.map("0000:18:00.0");
  EXPECT_EQ(nvme.pmu, "uncore_iio_0");
  EXPECT_EQ(nvme.parts, std::vector<unsigned>{3});
  // CBDMA at device 1 of the CBDMA/DMI stack is part 3 (ICX_CBDMA_PART_ID).
  auto cbdma = m.map("0000:c9:01.0");
  EXPECT_EQ(cbdma.pmu, "uncore_iio_5");
  EXPECT_EQ(cbdma.parts, std::vector<unsigned>{3});
}

TEST(IioIcx, TwoDevicesClaimingOneStackAreNamed) {
  IioMapped m(iio_machine(106, 1,
                          json::array({reg_device("0000:17:00.0", "09a2", {{0x3f4, 0x10}}),
                                       reg_device("0000:30:00.0", "09a2", {{0x3f4, 0x10}})})));
  EXPECT_TRUE(m.warned("socket 0 entry 1: 0000:17:00.0 SAD_CONTROL_CFG @0x3f4 = 0x10 gives root bus 0000:17, "
                       "0000:30:00.0 SAD_CONTROL_CFG @0x3f4 = 0x10 gives 0000:30"))
      << m.warnings();
}

TEST(IioIcxD, TheIcxDTableIsAnother) {
  // icx_d_sad_to_pmu_id_mapping: SAD 1 -> PMU 5, SAD 3 -> PMU 0.
  IioMapped m(iio_machine(
      108, 1,
      json::array({reg_device("0000:05:00.0", "09a2", {{0x3f4, 0x10}}),
                   root_port("0000:05:02.0", "8086:347a", 0x06, 0x06), endpoint("0000:06:00.0", "144d:a80a"),
                   reg_device("0000:0a:00.0", "09a2", {{0x3f4, 0x30}})})));
  EXPECT_EQ(m.map("0000:06:00.0").pmu, "uncore_iio_5");
  EXPECT_EQ(m.stack(0, 3)->pmu, 0u);
}

TEST(IioSnr, PcieRootPortPartsFollowTheDeviceIdAndAcceleratorsArePart4) {
  // snr_sad_pmon_mapping: SAD 0 -> PMU 1, 1 -> 4, 2 -> 3, 3 -> 2, 4 -> 0.
  IioMapped m(iio_machine(
      134, 1,
      json::array(
          {reg_device("0000:00:00.0", "09a2", {{0x3f4, 0x00}}),
           endpoint("0000:00:01.0", "8086:0b00", "0x088000", "rciep"),
           reg_device("0000:11:00.0", "09a2", {{0x3f4, 0x10}}), root_port("0000:11:04.0", "8086:334a", 0x12, 0x12),
           root_port("0000:11:05.0", "8086:3349", 0x13, 0x13), endpoint("0000:13:00.0", "8086:1593", "0x020000"),
           reg_device("0000:c0:00.0", "09a2", {{0x3f4, 0x20}}), reg_device("0000:e0:00.0", "09a2", {{0x3f4, 0x40}}),
           endpoint("0000:e2:00.0", "8086:18da", "0x0b4000", "rciep")})));
  ASSERT_TRUE(m.t.warnings.empty()) << m.warnings();
  // PCM JacobsvillePlatformMapping: part = 4 + device id - 0x334A (SNR_ROOT_PORT_A_DID).
  auto nic = m.map("0000:13:00.0");
  EXPECT_EQ(nic.pmu, "uncore_iio_4");
  EXPECT_EQ(nic.parts, std::vector<unsigned>{3});
  EXPECT_EQ(m.map("0000:11:04.0").parts, std::vector<unsigned>{4});
  // QAT 0x18DA anywhere on its stack's buses is part 4 (SNR_ACCELERATOR_PART_ID) of uncore_iio_0.
  auto qat = m.map("0000:e2:00.0");
  EXPECT_EQ(qat.pmu, "uncore_iio_0");
  EXPECT_EQ(qat.parts, std::vector<unsigned>{4});
  // CBDMA (device 1 of the CBDMA/DMI stack) is part 0 of uncore_iio_1.
  EXPECT_EQ(m.map("0000:00:01.0").pmu, "uncore_iio_1");
  EXPECT_EQ(m.map("0000:00:01.0").parts, std::vector<unsigned>{0});
  EXPECT_EQ(m.stack(0, 2)->pmu, 3u);
}
