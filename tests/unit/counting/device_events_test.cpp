// counting/device_events.h: an exported event labelled with a PCI device counts that device, as
// pmu-rcmap maps it: bound to the device's PMU and filter when it names only the PMU type, refused
// in one line (the device, the PMU and filter that see it, the event) when it counts other traffic.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmukit/counting/device_events.h"
#include "pmukit/families/intel/iio_devices.h"
#include "pmukit/util/error.h"
#include "support/bundled_rig.h"

using namespace pmukit;
using counting::DeviceFilter;

namespace {

std::string check(const std::string& event, const std::vector<DeviceFilter>& filters, std::string& bound) {
  return counting::check_device_event(event, "0000:16:00.0", filters, bound);
}

// The IIO PMU and part that count `device`, as pmu-rcmap finds them (the library's map, not the test's).
discovery::IioDeviceMap rcmap(test::BundledRig& rig, const std::string& device) {
  auto bdf = *Bdf::parse(device);
  const pci::Device* dev = nullptr;
  for (const auto& d : rig.found.devices)
    if (d.bdf == bdf) dev = &d;
  EXPECT_NE(dev, nullptr);
  auto topo = discovery::read_iio_topology(*rig.machine, rig.found.devices, rig.found.topology,
                                           *discovery::iio_scheme_for(rig.found.cpu));
  auto map = discovery::map_iio_device(*dev, rig.found.devices, topo, &rig.found.inventory);
  map.stack = map.on_stack = nullptr;  // they point into topo
  return map;
}

}  // namespace

TEST(DeviceEvents, TheFilterTermsAreComparedByValueAndFcMaskIsTheUsers) {
  const std::vector<DeviceFilter> filters{{"uncore_iio_2", "ch_mask=0x1,fc_mask=0x7"}};
  std::string bound;
  EXPECT_EQ(check("uncore_iio_2/event=0x83,umask=0x04,ch_mask=1,fc_mask=0x3/", filters, bound), "");
  EXPECT_EQ(bound, "uncore_iio_2/event=0x83,umask=0x04,ch_mask=1,fc_mask=0x3/");
  // No ch_mask on the PMU instance: the whole stack, not the device.
  auto why = check("uncore_iio_2/event=0x83,umask=0x04/", filters, bound);
  EXPECT_EQ(why, "device 0000:16:00.0 is counted by uncore_iio_2 ch_mask=0x1,fc_mask=0x7 (pmu-rcmap 0000:16:00.0); the "
                 "event uncore_iio_2/event=0x83,umask=0x04/ counts other traffic");
  // Another part of the same stack, or this part and another.
  EXPECT_NE(check("uncore_iio_2/event=0x83,umask=0x04,ch_mask=0x2/", filters, bound), "");
  EXPECT_NE(check("uncore_iio_2/event=0x83,umask=0x04,ch_mask=0x3/", filters, bound), "");
  // The PMU type alone: bound to the device's PMU and filter, the user's terms kept.
  EXPECT_EQ(check("uncore_iio/event=0x83,umask=0x04,name=nvme/", filters, bound), "");
  EXPECT_EQ(bound, "uncore_iio_2/event=0x83,umask=0x04,ch_mask=0x1,fc_mask=0x7,name=nvme/");
  EXPECT_EQ(check("uncore_iio/event=0x83,umask=0x04,fc_mask=0x1/", filters, bound), "");
  EXPECT_EQ(bound, "uncore_iio_2/event=0x83,umask=0x04,fc_mask=0x1,ch_mask=0x1/");
  // Another PMU type is not bound to the device's.
  EXPECT_NE(check("uncore_imc/event=0x83/", filters, bound), "");
}

TEST(DeviceEvents, SprDevicesAreBoundToThePmuAndPartPmuRcmapGives) {
  test::BundledRig rig("spr-2s");
  const std::string device = "0000:16:00.0";
  auto map = rcmap(rig, device);
  ASSERT_FALSE(map.filters.empty());
  const auto& f = map.filters.front();
  std::vector<counting::SeriesEvent> events(1);
  events[0].event = "uncore_iio/event=0x83,umask=0x04/";
  events[0].device = device;
  counting::bind_device_events(*rig.machine, rig.found, events);
  EXPECT_EQ(events[0].event, f.pmu + "/event=0x83,umask=0x04," + f.terms + "/");
  // The README's old example: the IIO PMU number of another stack, the device's ch_mask.
  std::string other = f.pmu == "uncore_iio_1" ? "uncore_iio_2" : "uncore_iio_1";
  events[0].event = other + "/event=0x83,umask=0x04," + f.terms + "/";
  try {
    counting::bind_device_events(*rig.machine, rig.found, events);
    FAIL() << "another stack's PMU was accepted";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("device " + device + " is counted by " + f.pmu + " " + f.terms), std::string::npos) << what;
    EXPECT_NE(what.find("the event " + other + "/"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(DeviceEvents, Tegra410DevicesAreBoundToTheirRootComplexPmu) {
  test::BundledRig rig("t410-2s");
  auto filters = counting::device_filters(*rig.machine, rig.found, "0005:41:00.0");
  ASSERT_FALSE(filters.empty());
  EXPECT_EQ(filters.front().pmu.rfind("nvidia_pcie_pmu_", 0), 0u) << filters.front().pmu;
  std::vector<counting::SeriesEvent> events(1);
  events[0].event = "nvidia_pcie_pmu/event=0x4/";
  events[0].device = "0005:41:00.0";
  counting::bind_device_events(*rig.machine, rig.found, events);
  EXPECT_EQ(events[0].event, filters.front().pmu + "/event=0x4," + filters.front().terms + "/");
  EXPECT_THROW(counting::device_filters(*rig.machine, rig.found, "0005:ff:1f.7"), Error);
}
