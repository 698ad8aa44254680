// The capability walk: normal chains, VSEC/DVSEC decoding, and every guard on broken input.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/pci/device.h"
#include "pmukit/snapshot/builder.h"
#include "support/test_support.h"

using namespace pmukit;
using snapshot::ConfigImage;

namespace {

// Builds one device from `cfg` in a fresh snapshot and scans it.
struct OneDevice {
  test::TempDir dir;
  std::unique_ptr<Machine> machine;
  pci::Device dev;
  std::uint64_t reads = 0;

  explicit OneDevice(const ConfigImage& cfg, unsigned config_size = 4096) {
    snapshot::SnapshotBuilder b(dir.path());
    snapshot::PciDeviceSpec spec;
    spec.bdf = *Bdf::parse("0000:6a:03.1");
    spec.config = cfg;
    spec.config_size = config_size;
    b.add_pci_device(spec);
    machine = std::make_unique<Machine>(MachineOptions{dir.path()});
    auto devs = pci::scan(*machine);
    dev = devs.at(0);
    reads = machine->pci().total_config_reads();
  }
  bool warned(const std::string& needle) const {
    for (const auto& w : dev.warnings)
      if (w.find(needle) != std::string::npos) return true;
    return false;
  }
};

ConfigImage pmon_device() {
  // The SPR "PMON MSM" device 6a:03.1 of the corpus: PCIe at 0x90, PM at 0xe0, DVSECs then a VSEC.
  ConfigImage c(0x8086, 0x09a7, 0x110100);
  c.add_pcie_cap(0x90, 0x9);
  c.add_std_cap(0xe0, 0x01);
  c.add_dvsec(0x100, 0x8086, 1, 1, 16);
  c.add_dvsec(0x110, 0x8086, 2, 1, 16);
  c.add_vsec(0x160, 0x41, 1, 0x10);
  return c;
}

}  // namespace

TEST(Capabilities, WalksBothListsAndDecodesVendorHeaders) {
  OneDevice d(pmon_device());
  ASSERT_EQ(d.dev.caps.size(), 5u);
  EXPECT_TRUE(d.dev.is_pcie);
  EXPECT_EQ(d.dev.port_type, 9);
  EXPECT_EQ(d.dev.caps[0].offset, 0x90);
  EXPECT_EQ(d.dev.caps[1].id, 0x01);
  const auto* pmon = d.dev.find_dvsec(0x8086, 1);
  ASSERT_NE(pmon, nullptr);
  EXPECT_EQ(pmon->offset, 0x100);
  EXPECT_EQ(pmon->version, 1);
  EXPECT_EQ(pmon->dvsec->rev, 1);
  EXPECT_EQ(pmon->dvsec->length, 16);
  const auto* vsec = d.dev.find_vsec(0x8086, 0x41);
  ASSERT_NE(vsec, nullptr);
  EXPECT_EQ(vsec->vsec->length, 0x10);
  EXPECT_TRUE(d.dev.warnings.empty());
}

TEST(Capabilities, ReadsOnlyTheDwordsTheWalkNeeds) {
  OneDevice d(pmon_device());
  // The 64-byte header in one read (command/status, header type and cap pointer are in it, as
  // lspci reads it), 2 standard caps, 2 DVSECs x 3 dwords, VSEC x 2.
  EXPECT_EQ(d.reads, 1u + 2u + 6u + 2u);
  EXPECT_LT(d.reads, 4096u / 4u);
}

TEST(Capabilities, StandardSelfLoopStops) {
  ConfigImage c = pmon_device();
  c.set_std_next(0xe0, 0xe0);
  OneDevice d(c);
  EXPECT_TRUE(d.warned("@0xe0: capability list loops"));
}

TEST(Capabilities, StandardLongerCycleStops) {
  ConfigImage c(0x8086, 0x1234, 0);
  c.add_std_cap(0x40, 0x05);
  c.add_std_cap(0x50, 0x11);
  c.add_std_cap(0x60, 0x01);
  c.set_std_next(0x60, 0x40);
  OneDevice d(c);
  EXPECT_EQ(d.dev.caps.size(), 3u);
  EXPECT_TRUE(d.warned("capability list loops"));
}

TEST(Capabilities, StandardPointerIntoTheHeaderStops) {
  ConfigImage c(0x8086, 0x1234, 0);
  c.add_std_cap(0x40, 0x05);
  c.set_std_next(0x40, 0x10);
  OneDevice d(c);
  EXPECT_EQ(d.dev.caps.size(), 1u);
  EXPECT_TRUE(d.warned("points into the header"));
}

TEST(Capabilities, BrokenIdStops) {
  ConfigImage c(0x8086, 0x1234, 0);
  c.add_std_cap(0x40, 0x05);
  c.add_std_cap(0x50, 0xff);
  OneDevice d(c);
  EXPECT_EQ(d.dev.caps.size(), 1u);
  EXPECT_TRUE(d.warned("chain broken"));
}

TEST(Capabilities, ExtendedSelfLoopAndLongerCycleStop) {
  ConfigImage self = pmon_device();
  self.set_ext_next(0x160, 0x160);
  OneDevice a(self);
  EXPECT_TRUE(a.warned("@0x160: extended capability list loops"));
  ConfigImage cycle = pmon_device();
  cycle.set_ext_next(0x160, 0x100);
  OneDevice b(cycle);
  EXPECT_EQ(b.dev.caps.size(), 5u);
  EXPECT_TRUE(b.warned("extended capability list loops"));
}

TEST(Capabilities, ExtendedPointerOutOfRangeStops) {
  ConfigImage c = pmon_device();
  c.set_ext_next(0x110, 0x080);
  OneDevice d(c);
  EXPECT_EQ(d.dev.caps.size(), 4u);
  EXPECT_TRUE(d.warned("next pointer 0x80 outside 0x100..0xffc"));
}

TEST(Capabilities, ExtendedReservedPointerBitsAreMaskedAndReported) {
  ConfigImage c = pmon_device();
  c.set_ext_next(0x110, 0x162);
  OneDevice d(c);
  EXPECT_EQ(d.dev.caps.size(), 5u);
  EXPECT_TRUE(d.warned("reserved bits set"));
}

TEST(Capabilities, AllOnesHeaderEndsTheWalk) {
  ConfigImage c = pmon_device();
  c.w32(0x160, 0xffffffff);
  OneDevice d(c);
  EXPECT_EQ(d.dev.caps.size(), 4u);
  EXPECT_TRUE(d.warned("0xffffffff ends the list"));
}

TEST(Capabilities, NoExtendedWalkOnConventionalPci) {
  // Like corpus broken-ecaps: extended space holds garbage but there is no PCIe capability.
  ConfigImage c(0x1002, 0x7911, 0x060000);
  c.add_std_cap(0x40, 0x01);
  c.w32(0x100, 0x79111002);
  OneDevice d(c);
  EXPECT_FALSE(d.dev.is_pcie);
  ASSERT_EQ(d.dev.caps.size(), 1u);
  EXPECT_EQ(d.dev.caps[0].kind, pci::CapKind::Standard);
}

TEST(Capabilities, NoExtendedWalkWhenConfigSpaceIsShort) {
  OneDevice d256(pmon_device(), 256);
  EXPECT_EQ(d256.dev.config_size, 256u);
  EXPECT_EQ(d256.dev.caps.size(), 2u);
  OneDevice d64(pmon_device(), 64);
  EXPECT_EQ(d64.dev.config_size, 64u);
  EXPECT_TRUE(d64.dev.caps.empty());
  EXPECT_TRUE(d64.warned("run as root"));
}

TEST(Capabilities, NoCapListBitMeansNoWalk) {
  ConfigImage c = pmon_device();
  c.w16(0x06, 0);
  OneDevice d(c);
  EXPECT_TRUE(d.dev.caps.empty());
}

TEST(Capabilities, NamesFollowLspci) {
  EXPECT_EQ(pci::capability_name(pci::CapKind::Standard, 0x10), "Express");
  EXPECT_EQ(pci::capability_name(pci::CapKind::Extended, 0x23), "Designated Vendor-Specific");
  EXPECT_EQ(pci::capability_name(pci::CapKind::Extended, 0x0b), "Vendor Specific Information");
  EXPECT_EQ(pci::port_type_name(4), "Root Port");
}
