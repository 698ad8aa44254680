// libpci's warnings belong to the device they were raised for (they were printed under another
// device's BDF), and a sysfs tree libpci could not scan without failing halfway is refused first.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

snapshot::PciDeviceSpec device(const char* bdf) {
  snapshot::PciDeviceSpec s;
  s.bdf = *Bdf::parse(bdf);
  s.config = snapshot::ConfigImage(0x8086, 0x0001, 0x088000);
  return s;
}

std::string all(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& w : v) s += w + "\n";
  return s;
}

TEST(LibpciWarnings, AreFiledUnderTheirOwnDevice) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  for (const char* bdf : {"0000:00:01.0", "0000:00:02.0", "0000:00:03.0"}) b.add_pci_device(device(bdf));
  // An optional attribute longer than libpci's 1024-byte buffer: "Value in ... too long" (a
  // warning, pciutils lib/sysfs.c sysfs_get_string).
  b.write_text("/sys/bus/pci/devices/0000:00:02.0/numa_node", std::string(1500, '7'));
  Machine m(MachineOptions{dir.path()});
  auto devices = pci::scan(m);
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_NE(all(devices[1].warnings).find("0000:00:02.0: libpci: Value in "), std::string::npos)
      << all(devices[1].warnings);
  EXPECT_NE(all(devices[1].warnings).find("0000:00:02.0/numa_node too long"), std::string::npos);
  EXPECT_EQ(all(devices[0].warnings).find("numa_node"), std::string::npos) << all(devices[0].warnings);
  EXPECT_EQ(all(devices[2].warnings).find("numa_node"), std::string::npos) << all(devices[2].warnings);
}

TEST(LibpciTree, NamesLibpciCannotScanAreRefusedBeforeItStarts) {
  for (const char* name : {"ffffffff:00:00.0", "0:0:0.0", "not-a-device"}) {
    test::TempDir dir;
    snapshot::SnapshotBuilder b(dir.path());
    b.add_pci_device(device("0000:00:01.0"));
    std::filesystem::create_directories(dir / ("sys/bus/pci/devices/" + std::string(name)));
    Machine m(MachineOptions{dir.path()});
    try {
      m.pci();
      ADD_FAILURE() << name;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + name + "' is not a PCI address"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
