// PciAccess: sysfs snapshots and dump files through libpci, with errors as exceptions.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {
snapshot::PciDeviceSpec device(const char* bdf, unsigned config_size = 4096) {
  snapshot::PciDeviceSpec d;
  d.bdf = *Bdf::parse(bdf);
  d.config = snapshot::ConfigImage(0x8086, 0x09a7, 0x110100);
  d.config.set_revision(1);
  d.config_size = config_size;
  d.numa_node = 1;
  return d;
}
}  // namespace

TEST(PciAccess, ListsSysfsDevicesSortedWithIdentityAndNuma) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.add_pci_device(device("0001:00:00.0"));
  b.add_pci_device(device("0000:e9:03.1"));
  b.add_pci_device(device("0000:6a:03.1"));
  Machine m(MachineOptions{dir.path()});
  auto& pci = m.pci();
  EXPECT_EQ(pci.method(), "linux-sysfs");
  ASSERT_EQ(pci.devices().size(), 3u);
  EXPECT_EQ(pci.devices()[0].bdf.str(), "0000:6a:03.1");
  EXPECT_EQ(pci.devices()[2].bdf.str(), "0001:00:00.0");
  EXPECT_EQ(pci.devices()[0].vendor_id, 0x8086);
  EXPECT_EQ(pci.devices()[0].device_id, 0x09a7);
  EXPECT_EQ(pci.devices()[0].class_code, 0x110100u);
  EXPECT_EQ(pci.devices()[0].numa_node, 1);
  auto& cfg = pci.config(*Bdf::parse("0000:6a:03.1"));
  EXPECT_EQ(cfg.read32(0), 0x09a78086u);
  EXPECT_EQ(cfg.size(), 4096u);
  EXPECT_EQ(cfg.read_count(), 1u);
}

TEST(PciAccess, TruncatedConfigFilesReadOnlyTheirLength) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.add_pci_device(device("0000:00:01.0", 64));
  b.add_pci_device(device("0000:00:02.0", 256));
  Machine m(MachineOptions{dir.path()});
  auto& c64 = m.pci().config(*Bdf::parse("00:01.0"));
  auto& c256 = m.pci().config(*Bdf::parse("00:02.0"));
  EXPECT_EQ(c64.size(), 64u);
  EXPECT_EQ(c256.size(), 256u);
  EXPECT_TRUE(c64.read32(0x3c));
  EXPECT_FALSE(c64.read32(0x40));
  EXPECT_FALSE(c256.read32(0x100));
  EXPECT_THROW(c256.read32_or_throw(0x100), Error);
}

TEST(PciAccess, DeviceWithoutConfigFileIsAWarningNotACrash) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  auto d = device("0000:00:05.0");
  d.has_config = false;
  b.add_pci_device(d);
  Machine m(MachineOptions{dir.path()});
  auto& cfg = m.pci().config(d.bdf);
  EXPECT_EQ(cfg.size(), 0u);
  EXPECT_FALSE(cfg.read32(0));
  auto warnings = m.pci().take_warnings();
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].find("0000:00:05.0/config"), std::string::npos) << warnings[0];
}

TEST(PciAccess, DumpFilesWorkAndWritesToThemFail) {
  test::TempDir dir;
  write_file(dir / "dump.txt", "0000:6a:03.1 Performance counters: Intel Corporation Device 09a7\n"
                               "00: 86 80 a7 09 06 00 10 00 01 00 01 11 00 00 00 00\n"
                               "10: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
                               "20: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
                               "30: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n\n");
  MachineOptions o{dir.path()};
  o.pci_dump = dir / "dump.txt";
  Machine m(o);
  EXPECT_EQ(m.pci().method(), "dump");
  ASSERT_EQ(m.pci().devices().size(), 1u);
  auto& cfg = m.pci().config(m.pci().devices()[0].bdf);
  EXPECT_EQ(cfg.size(), 64u);  // an 'lspci -x' dump: 64 bytes
  EXPECT_FALSE(cfg.read32(0x40));
  EXPECT_EQ(*cfg.read16(0), 0x8086);
  try {
    cfg.write32(0x10, 0);
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("0000:6a:03.1 @0x10: config write failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dump"), std::string::npos) << msg;
  }
}

TEST(PciAccess, MalformedDumpIsAnErrorNamingTheFile) {
  test::TempDir dir;
  // Good lines first (and a line outside any device, which libpci ignores): the error names line 6.
  write_file(dir / "bad.txt",
             "00:00.0 Host bridge\n00: 86 80 00 00\n\nnot a device\n0000:00:01.0 Bridge\n00: 86 80 zz\n");
  MachineOptions o;
  o.pci_dump = dir / "bad.txt";
  Machine m(o);
  try {
    m.pci();
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("bad.txt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Malformed line (line 6: '00: 86 80 zz')"), std::string::npos) << msg;
  }
}

TEST(PciAccess, FiltersUseLibpciGrammar) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.add_pci_device(device("0000:6a:03.1"));
  auto other = device("0001:00:00.0");
  other.config = snapshot::ConfigImage(0x10de, 0x22b2, 0x060400, 1);
  b.add_pci_device(other);
  Machine m(MachineOptions{dir.path()});
  PciFilter by_id;
  by_id.set_id("10de:");
  EXPECT_FALSE(m.pci().matches(*Bdf::parse("0000:6a:03.1"), by_id));
  EXPECT_TRUE(m.pci().matches(*Bdf::parse("0001:00:00.0"), by_id));
  PciFilter by_slot;
  by_slot.set_slot("6a:03");
  EXPECT_TRUE(m.pci().matches(*Bdf::parse("0000:6a:03.1"), by_slot));
  EXPECT_FALSE(m.pci().matches(*Bdf::parse("0001:00:00.0"), by_slot));
  PciFilter bad;
  EXPECT_THROW(bad.set_slot("zz:1:2:3:4"), UsageError);
  EXPECT_THROW(bad.set_id("xyz:1"), UsageError);
}

TEST(PciAccess, MissingSysfsTreeIsAClearError) {
  test::TempDir dir;
  Machine m(MachineOptions{dir.path() / "nothing"});
  try {
    m.pci();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no PCI sysfs tree"), std::string::npos) << e.what();
  }
}
