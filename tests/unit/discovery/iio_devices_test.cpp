// Every PCI device mapped to its IIO stack at once (map_iio_devices): the function each hangs from
// (its root port, else the outermost legacy bridge whose bus range holds its bus) checked against
// the rule written out here device by device, over nested, overlapping and tied bridge ranges;
// and each stack named after its PMU as Linux names it (uncore_iio_<n>, skx_iio_topology_cb).
#include <gtest/gtest.h>

#include "iio_fixture.h"

using namespace pmukit;
using namespace pmukit::test;

namespace {

// A bridge without a PCIe capability (a PCI-to-PCI bridge of conventional PCI): no root port above
// what hangs from it.
json legacy_bridge(const std::string& bdf, int secondary, int subordinate) {
  int bus = std::stoi(bdf.substr(5, 2), nullptr, 16);
  return {{"bdf", bdf},
          {"id", "12d8:e111"},
          {"class", "0x060400"},
          {"header_type", 1},
          {"bus_numbers", json::array({bus, secondary, subordinate})}};
}

json conventional(const std::string& bdf) {
  return {{"bdf", bdf}, {"id", "10b5:9054"}, {"class", "0x078000"}};
}

// Skylake-SP as iio_routes_test builds it (UBOX CPUBUSNO: socket 1's stack 2 on root bus 0x44, its
// range up to 0x4d), with legacy bridges on that stack: A (44:03.0, buses 46-49), B below A (46:00.0,
// 47-48), C (44:04.0, 47-4a: as wide as A, after it) -- and conventional functions behind them.
json skx_with_legacy_bridges() {
  json ubox1 = reg_device("0000:3a:08.0", "2014", {{0xc0, 5}, {0xd4, 0x2a}});
  json buses1 = reg_device("0000:3a:08.2", "2016", {{0xcc, 0x4e443a30}, {0xd0, 0x00000058}});
  json ubox0 = reg_device("0000:85:08.0", "2014", {{0xc0, 2}, {0xd4, 0x2a}});
  json buses0 = reg_device("0000:85:08.2", "2016", {{0xcc, 0x008a8580}, {0xd0, 0x00009900}});
  return iio_machine(85, 2,
                     json::array({ubox1, buses1, ubox0, buses0, root_port("0000:44:02.0", "8086:2032", 0x45, 0x45),
                                  endpoint("0000:45:00.0", "144d:a80a"), legacy_bridge("0000:44:03.0", 0x46, 0x49),
                                  legacy_bridge("0000:46:00.0", 0x47, 0x48), legacy_bridge("0000:44:04.0", 0x47, 0x4a),
                                  conventional("0000:46:01.0"), conventional("0000:47:00.0"),
                                  conventional("0000:48:00.0"), conventional("0000:4a:00.0"),
                                  conventional("0000:4b:00.0"), endpoint("0000:9a:00.0", "15b3:101d", "0x020000")}));
}

// The rule as the header states it, one device at a time: the root port; else, among the bridges of
// the device's domain whose secondary..subordinate range holds its bus (itself excepted), the widest,
// the first in device order among equally wide; else the device itself.
Bdf reference_anchor(const pci::Device& d, const std::vector<pci::Device>& devices) {
  if (d.root_port)
    for (const auto& x : devices)
      if (x.bdf == *d.root_port) return x.bdf;
  const pci::Device* best = nullptr;
  auto width = [](const pci::Device& b) { return int(*b.subordinate_bus) - int(*b.secondary_bus); };
  for (const auto& b : devices) {
    if (!b.is_bridge() || b.bdf.domain != d.bdf.domain || !b.secondary_bus || !b.subordinate_bus || b.bdf == d.bdf)
      continue;
    if (d.bdf.bus < *b.secondary_bus || d.bdf.bus > *b.subordinate_bus) continue;
    if (!best || width(b) > width(*best)) best = &b;
  }
  return best ? best->bdf : d.bdf;
}

}  // namespace

TEST(IioDevices, EveryDeviceHangsFromTheFunctionTheRuleNames) {
  IioMapped m(skx_with_legacy_bridges());
  const auto maps = discovery::map_iio_devices(m.devices, m.t, nullptr);
  ASSERT_EQ(maps.size(), m.devices.size());
  std::map<std::string, std::string> anchor;
  for (std::size_t i = 0; i < maps.size(); ++i) {
    const auto& d = m.devices[i];
    EXPECT_EQ(maps[i].device, d.bdf);
    ASSERT_TRUE(maps[i].anchor) << d.bdf.str();
    EXPECT_EQ(*maps[i].anchor, reference_anchor(d, m.devices)) << d.bdf.str();
    anchor[d.bdf.str()] = maps[i].anchor->str();
    // One device alone is mapped as it is among all of them.
    const auto alone = discovery::map_iio_device(d, m.devices, m.t, nullptr);
    EXPECT_EQ(alone.anchor, maps[i].anchor) << d.bdf.str();
    EXPECT_EQ(alone.pmu, maps[i].pmu) << d.bdf.str();
    EXPECT_EQ(alone.parts, maps[i].parts) << d.bdf.str();
    EXPECT_EQ(alone.error, maps[i].error) << d.bdf.str();
  }
  EXPECT_EQ(anchor["0000:45:00.0"], "0000:44:02.0");  // its root port
  EXPECT_EQ(anchor["0000:46:01.0"], "0000:44:03.0");  // A alone holds bus 46
  EXPECT_EQ(anchor["0000:46:00.0"], "0000:44:03.0");  // B hangs from A, not from itself
  EXPECT_EQ(anchor["0000:47:00.0"], "0000:44:03.0");  // A, B and C hold 47: A and C are widest, A first
  EXPECT_EQ(anchor["0000:48:00.0"], "0000:44:03.0");
  EXPECT_EQ(anchor["0000:4a:00.0"], "0000:44:04.0");  // C alone
  EXPECT_EQ(anchor["0000:4b:00.0"], "0000:4b:00.0");  // no bridge: itself
  EXPECT_EQ(anchor["0000:44:03.0"], "0000:44:03.0");  // no bridge holds the root bus
  // All of A's and C's devices are on socket 1's stack 2, whatever part holds them.
  for (std::size_t i = 0; i < maps.size(); ++i)
    if (m.devices[i].bdf.bus >= 0x46 && m.devices[i].bdf.bus <= 0x4b) {
      EXPECT_EQ(maps[i].on_stack, m.stack(1, 2)) << m.devices[i].bdf.str();
    }
}

TEST(IioDevices, EachStackCarriesItsPmuNames) {
  IioMapped m(skx_with_legacy_bridges());
  for (const auto& s : m.t.stacks) {
    ASSERT_TRUE(s.pmu) << s.name;  // every SKX stack has its PMU: stack i of a die is uncore_iio_i
    EXPECT_EQ(s.pmu_name, "uncore_iio_" + std::to_string(*s.pmu));
    EXPECT_EQ(s.free_running, "uncore_iio_free_running_" + std::to_string(*s.pmu));
  }
  const auto maps = discovery::map_iio_devices(m.devices, m.t, nullptr);
  for (const auto& r : maps)
    if (r.stack) {
      EXPECT_EQ(r.pmu, r.stack->pmu_name) << r.device.str();
    }
}
