// PhysicalMemory: BAR resolution from `resource` files, resourceN before /dev/mem, explained errors.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {
void add_device_with_bar(snapshot::SnapshotBuilder& b) {
  snapshot::PciDeviceSpec d;
  d.bdf = *Bdf::parse("0000:6a:03.1");
  d.config = snapshot::ConfigImage(0x8086, 0x09a7, 0x110100);
  d.bars = {{0, 0x206ffff40000ull, 0x2000, true, false}, {2, 0xc0000000, 0x1000, false, false}};
  b.add_pci_device(d);
}
}  // namespace

TEST(PhysicalMemory, ResolvesAnAddressToTheBarThatHoldsIt) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  add_device_with_bar(b);
  Machine m(MachineOptions{dir.path()});
  auto bar = m.memory().find_bar(0x206ffff40100ull, 0x100);
  ASSERT_TRUE(bar);
  EXPECT_EQ(bar->index, 0);
  EXPECT_EQ(bar->bdf.str(), "0000:6a:03.1");
  EXPECT_EQ(bar->resource_file.filename(), "resource0");
  EXPECT_FALSE(m.memory().find_bar(0x206ffff41f00ull, 0x200));  // runs past the BAR end
  EXPECT_TRUE(m.memory().find_bar(0xc0000ffc, 4));
  EXPECT_EQ(m.memory().bars().size(), 2u);
}

// find_bar is a search over BARs sorted by start; its answer must be the plain definition's: the
// first BAR in bars() order holding the range. Devices are listed out of address order, and one
// malformed BAR overlaps two others (sysfs is input).
TEST(PhysicalMemory, FindBarAnswersAsALinearScanDoes) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  const std::uint64_t bases[][2] = {{0x9000, 0x1000}, {0x2000, 0x1000}, {0x5000, 0x1000}, {0x1000, 0x8000}};
  for (unsigned i = 0; i < 4; ++i) {
    snapshot::PciDeviceSpec d;
    d.bdf = Bdf{0, static_cast<std::uint8_t>(0x10 + i), 0, 0};
    d.config = snapshot::ConfigImage(0x8086, 0x1234, 0x110100);
    d.bars = {{0, bases[i][0], bases[i][1], false, false}};
    b.add_pci_device(d);
  }
  Machine m(MachineOptions{dir.path()});
  auto& mem = m.memory();
  ASSERT_EQ(mem.bars().size(), 4u);
  for (std::uint64_t phys = 0; phys < 0xb000; phys += 0x80)
    for (std::uint64_t len : {1ull, 0x100ull, 0x1000ull, 0x3000ull}) {
      const BarRegion* want = nullptr;
      for (const auto& bar : mem.bars())
        if (bar.contains(phys, len)) {
          want = &bar;
          break;
        }
      EXPECT_EQ(mem.find_bar(phys, len), want) << std::hex << phys << "+" << len;
    }
}

TEST(PhysicalMemory, MapsThroughResourceNAndSeesBarContents) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  add_device_with_bar(b);
  b.write_phys64(0x206ffff40010ull, 0x1122334455667788ull);  // lands in resource0 at +0x10
  Machine m(MachineOptions{dir.path()});
  auto w = m.memory().map(0x206ffff40000ull, 0x2000, false);
  EXPECT_NE(w->source().find("resource0"), std::string::npos);
  EXPECT_EQ(w->read64(0x10), 0x1122334455667788ull);
}

TEST(PhysicalMemory, FallsBackToDevMemOutsideEveryBar) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  add_device_with_bar(b);
  b.write_phys32(0xc8aa2800, 0x00010000);  // no BAR holds the SPR IMC PMON range
  Machine m(MachineOptions{dir.path()});
  auto w = m.memory().map(0xc8aa2800, 0x100, false);
  EXPECT_NE(w->source().find("dev/mem"), std::string::npos);
  EXPECT_EQ(w->read32(0), 0x00010000u);
}

TEST(PhysicalMemory, ErrorSaysWhatWasTriedAndWhy) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  add_device_with_bar(b);
  std::filesystem::remove(dir.path() / "sys/bus/pci/devices/0000:6a:03.1/resource0");
  Machine m(MachineOptions{dir.path()});
  try {
    m.memory().map(0x206ffff40000ull, 0x1000, false);
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("0x206ffff40000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0000:6a:03.1 BAR0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no such BAR file"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CONFIG_DEVMEM"), std::string::npos) << msg;
  }
}

TEST(PhysicalMemory, PermissionErrorsMentionLockdownWhenTheKernelIsLockedDown) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.write_text("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  Machine m(MachineOptions{dir.path()});
  std::string msg = m.memory().explain("/dev/mem", EPERM, true);
  EXPECT_NE(msg.find("lockdown is [integrity]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--backend perf"), std::string::npos) << msg;
  test::TempDir dir2;
  snapshot::SnapshotBuilder b2(dir2.path());
  b2.write_text("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
  Machine m2(MachineOptions{dir2.path()});
  msg = m2.memory().explain("/dev/mem", EPERM, true);
  EXPECT_NE(msg.find("STRICT_DEVMEM"), std::string::npos) << msg;
  EXPECT_NE(msg.find("iomem=relaxed"), std::string::npos) << msg;
}

// A BAR file that cannot be used: a directory in its place (EISDIR), or a snapshot's file shorter
// than the BAR (a load past its end would be SIGBUS): each an error naming the file, before any access.
TEST(PhysicalMemory, UnusableBarFilesAreErrorsNamingTheFile) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  add_device_with_bar(b);
  auto res0 = dir.path() / "sys/bus/pci/devices/0000:6a:03.1/resource0";
  auto res2 = dir.path() / "sys/bus/pci/devices/0000:6a:03.1/resource2";
  std::filesystem::remove(res0);
  std::filesystem::create_directory(res0);
  std::filesystem::resize_file(res2, 0x100);
  Machine m(MachineOptions{dir.path()});
  auto message = [&](std::uint64_t addr) -> std::string {
    try {
      m.memory().map(addr, 0x1000, false);
    } catch (const Error& e) {
      return e.what();
    }
    return "mapped";
  };
  std::string dir_msg = message(0x206ffff40000ull);
  EXPECT_NE(dir_msg.find("0000:6a:03.1 BAR0: " + res0.string() + ": "), std::string::npos) << dir_msg;
  std::string short_msg = message(0xc0000000);
  EXPECT_NE(short_msg.find("resource2"), std::string::npos) << short_msg;
  EXPECT_NE(short_msg.find("file is 0x100 bytes, window needs 0x0..0x1000"), std::string::npos) << short_msg;
}
