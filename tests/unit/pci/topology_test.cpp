// Root ports from bridge bus ranges; BAR decoding from sysfs flags and from dump registers.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit;
using snapshot::ConfigImage;

namespace {
snapshot::PciDeviceSpec bridge(const char* bdf, std::uint8_t port_type, std::uint8_t sec, std::uint8_t sub) {
  snapshot::PciDeviceSpec s;
  s.bdf = *Bdf::parse(bdf);
  s.config = ConfigImage(0x10de, 0x22b2, 0x060400, 1);
  s.config.add_pcie_cap(0x40, port_type);
  s.config.set_bus_numbers(s.bdf.bus, sec, sub);
  return s;
}
snapshot::PciDeviceSpec endpoint(const char* bdf) {
  snapshot::PciDeviceSpec s;
  s.bdf = *Bdf::parse(bdf);
  s.config = ConfigImage(0x144d, 0xa80a, 0x010802);
  s.config.add_pcie_cap(0x40, 0);
  return s;
}
}  // namespace

TEST(Topology, EndpointsBehindSwitchesFindTheirRootPort) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.add_pci_device(bridge("0008:00:00.0", 4, 0x01, 0x03));  // root port
  b.add_pci_device(bridge("0008:01:00.0", 5, 0x02, 0x03));  // switch upstream
  b.add_pci_device(bridge("0008:02:00.0", 6, 0x03, 0x03));  // switch downstream
  b.add_pci_device(endpoint("0008:03:00.0"));
  b.add_pci_device(endpoint("0018:01:00.0"));  // no root port in its domain
  Machine m(MachineOptions{dir.path()});
  auto devs = pci::scan(m);
  ASSERT_EQ(devs.size(), 5u);
  EXPECT_EQ(devs[0].root_port->str(), "0008:00:00.0");  // a root port is its own
  EXPECT_EQ(devs[1].root_port->str(), "0008:00:00.0");
  EXPECT_EQ(devs[3].root_port->str(), "0008:00:00.0");
  EXPECT_EQ(devs[3].bdf.str(), "0008:03:00.0");
  EXPECT_FALSE(devs[4].root_port);
  EXPECT_EQ(devs[0].secondary_bus, 1);
  EXPECT_EQ(devs[0].subordinate_bus, 3);
}

// Overlapping root-port bus ranges (firmware bugs, or a snapshot edited by hand): the outermost
// range owns a bus, the first of equal ones wins, and a range whose subordinate bus is below its
// secondary bus owns nothing.
TEST(Topology, OverlappingRootPortRangesGoToTheOutermost) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.add_pci_device(bridge("0000:00:01.0", 4, 0x10, 0x12));
  b.add_pci_device(bridge("0000:00:02.0", 4, 0x10, 0x1f));  // holds 00:01.0's range too
  b.add_pci_device(bridge("0000:00:03.0", 4, 0x20, 0x21));
  b.add_pci_device(bridge("0000:00:04.0", 4, 0x20, 0x21));  // same span as 00:03.0: the first wins
  b.add_pci_device(bridge("0000:00:05.0", 4, 0x31, 0x30));  // reversed
  b.add_pci_device(endpoint("0000:11:00.0"));
  b.add_pci_device(endpoint("0000:21:00.0"));
  b.add_pci_device(endpoint("0000:30:00.0"));
  Machine m(MachineOptions{dir.path()});
  auto devs = pci::scan(m);
  ASSERT_EQ(devs.size(), 8u);
  EXPECT_EQ(devs[5].root_port->str(), "0000:00:02.0");
  EXPECT_EQ(devs[6].root_port->str(), "0000:00:03.0");
  EXPECT_FALSE(devs[7].root_port);
}

TEST(Topology, BarsFromSysfsResourceFlags) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  auto s = endpoint("0000:6a:03.1");
  s.bars = {{0, 0x206ffff40000ull, 0x2000, true, false},
            {2, 0x206ffff00000ull, 0x20000, true, true},
            {4, 0xc0000000, 0x1000, false, false}};
  b.add_pci_device(s);
  Machine m(MachineOptions{dir.path()});
  auto d = pci::scan(m).at(0);
  ASSERT_EQ(d.bars.size(), 3u);
  EXPECT_EQ(d.bars[0].base, 0x206ffff40000ull);
  EXPECT_EQ(d.bars[0].size, 0x2000u);
  EXPECT_TRUE(d.bars[0].mem64);
  EXPECT_FALSE(d.bars[0].prefetchable);
  EXPECT_TRUE(d.bars[1].prefetchable);
  EXPECT_EQ(d.bars[2].index, 4);
  EXPECT_FALSE(d.bars[2].mem64);
}

TEST(Topology, BarsFromDumpRegistersHaveNoSize) {
  test::TempDir dir;
  write_file(dir / "d.txt", "6a:01.0 System peripheral: Intel Corporation Device 0b25\n"
                            "00: 86 80 25 0b 46 01 10 00 00 00 80 08 00 00 00 00\n"
                            "10: 0c 00 f4 ff 6f 20 00 00 0c 00 f0 ff 6f 20 00 00\n"
                            "20: 00 00 00 00 00 00 00 00 00 00 00 00 86 80 00 00\n"
                            "30: 00 00 00 00 40 00 00 00 00 00 00 00 00 00 00 00\n\n");
  MachineOptions o;
  o.pci_dump = dir / "d.txt";
  Machine m(o);
  auto d = pci::scan(m).at(0);
  ASSERT_EQ(d.bars.size(), 2u);
  EXPECT_EQ(d.bars[0].base, 0x206ffff40000ull);
  EXPECT_EQ(d.bars[1].index, 2);
  EXPECT_TRUE(d.bars[0].mem64);
  EXPECT_TRUE(d.bars[0].prefetchable);
  EXPECT_EQ(d.bars[0].size, 0u);
  EXPECT_EQ(d.numa_node, -1);
}
