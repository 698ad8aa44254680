// pmu-raw -M <IIO metric> --per-device / --per-stack against pmu-sim on the bundled SPR and GNR
// machines: one modelled line per PCIe device, BDF first and named as lspci names it, counted on
// its stack's uncore_iio_<n> with its part's ch_mask, and every register restored byte for byte.
//
// The expected values follow from the invented traffic of platforms/sim/rates.json, written out
// here: an inbound read (event 0x83, umask 0x04) counts 8e8 4-byte units per second for a part of
// share 1 on a stack of share 1 (3.2 GB/s); stack shares by the n of uncore_iio_<n> (mod 8) are
// 1, 2, 1.5, 0.5, 1.25, 0.75, 3, 0.25; part shares by ch_mask bit 1, 0.5, 0.25, 0.75, 0.125,
// 0.375, 0.625, 0.875, ...; fc_mask 0x7 selects all three classes.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pmukit/events/unit_events.h"
#include "pmukit/metrics/catalog.h"
#include "pmukit/platform/database.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;
using nlohmann::json;

namespace {

// The JSON lines of a -j run that carry `key` ("device", "pmu"), in order.
std::vector<json> lines_with(const std::string& out, const char* key) {
  std::vector<json> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (auto j = json::parse(line); j.contains(key)) v.push_back(j);
  return v;
}

std::map<std::string, json> by_device(const std::vector<json>& lines) {
  std::map<std::string, json> m;
  for (const auto& j : lines) m[j["device"].get<std::string>()] = j;
  return m;
}

}  // namespace

// The metrics' events, with a part's ch_mask, encode as the Intel perfmon files give the PART
// events: config = EventCode | UMask << 8 | PortMask << 36 | FCMask << 48 (the kernel's
// snr_uncore_iio_formats_attr: ch_mask config:36-47, fc_mask config:48-50).
TEST(IioMetricEncoding, PartEventsMatchThePerfmonFiles) {
  test::BundledRig rig("spr-2s");
  auto catalog = metrics::Catalog::embedded();
  const auto& db = platform::Database::builtin();
  auto units = rig.found.inventory.find("uncore_iio_2");
  ASSERT_FALSE(units.empty());
  auto pmu = events::describe_unit(*units[0], db);
  auto config = [&](const char* metric, const char* ch_mask) {
    std::string ev = catalog.at(metric).events().at(0).events.at(0);
    return syntax::encode(syntax::parse_event_list("uncore_iio_2/" + ev + ",ch_mask=" + ch_mask + "/").at(0), pmu)
        .config;
  };
  // UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0: EventCode 0x83, UMask 0x04, PortMask 0x001, FCMask 0x07.
  EXPECT_EQ(config("iio_inbound_read_bw", "0x1"), 0x0007001000000483ull);
  // UNC_IIO_DATA_REQ_OF_CPU.MEM_WRITE.PART2: 0x83, 0x01, PortMask 0x004.
  EXPECT_EQ(config("iio_inbound_write_bw", "0x4"), 0x0007004000000183ull);
  // UNC_IIO_DATA_REQ_BY_CPU.MEM_WRITE.PART7: 0xC0, 0x01, PortMask 0x080.
  EXPECT_EQ(config("iio_outbound_write_bw", "0x80"), 0x00070800000001c0ull);
  // GNR UNC_IIO_DATA_REQ_BY_CPU.MEM_READ.PART1: 0xC0, 0x04, PortMask 0x002; SPR/EMR pcm-iio OB read:
  // ev_sel 0x83, umask 0x80 (PCM opCode-6-143.txt).
  EXPECT_EQ(config("gnr_iio_outbound_read_bw", "0x2"), 0x00070020000004c0ull);
  EXPECT_EQ(config("spr_iio_outbound_read_bw", "0x1"), 0x0007001000008083ull);
  // UNC_IIO_IOMMU0.FIRST_LOOKUPS / MISSES / CTXT_CACHE_HITS: 0x40 with umask 0x01, 0x20, 0x80, no part filter.
  auto stack = [&](const char* metric) {
    std::string ev = catalog.at(metric).events().at(0).events.at(0);
    return syntax::encode(syntax::parse_event_list("uncore_iio_2/" + ev + "/").at(0), pmu).config;
  };
  EXPECT_EQ(stack("iio_iotlb_lookups"), 0x0140u);
  EXPECT_EQ(stack("iio_iotlb_misses"), 0x2040u);
  EXPECT_EQ(stack("iio_ctxt_cache_hits"), 0x8040u);
}

TEST(IioPerDevice, SprOneModelledLinePerDeviceAndRestore) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"-M", "iio_inbound_read_bw", "--per-device", "--duration", "1", "-j"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = lines_with(r.out, "device");
  auto dev = by_device(lines);
  EXPECT_EQ(lines.size(), dev.size()) << "one line per device: " << r.out;
  // Socket 0's devices behind root ports and integrated parts: 20 (pmu-rcmap --tree).
  unsigned s0 = 0;
  for (const auto& j : lines) s0 += j["socket"] == 0;
  EXPECT_EQ(s0, 20u) << r.out;
  auto value = [&](const char* bdf) { return dev.at(bdf)["metric-value"].get<std::string>(); };
  EXPECT_EQ(value("0000:16:00.0"), "4.800");  // uncore_iio_2 (x1.5) part 0 (x1)
  EXPECT_EQ(value("0000:28:00.0"), "0.500");  // uncore_iio_4 (x1.25) part 4 (x0.125)
  EXPECT_EQ(value("0000:27:00.1"), "4.000");  // uncore_iio_4 part 0: shared with 27:00.0
  EXPECT_EQ(value("0000:38:00.0"), "9.600");  // uncore_iio_6 (x3) part 0
  EXPECT_EQ(value("0000:4c:00.0"), "0.200");  // uncore_iio_7 (x0.25) part 2 (x0.25), behind a switch
  EXPECT_EQ(value("0000:5a:00.0"), "6.400");  // uncore_iio_9 (x2) part 0
  EXPECT_EQ(value("0000:6a:01.0"), "5.600");  // uncore_iio_0 (x1) parts 0,1,2 (x1.75): the DSA
  EXPECT_EQ(dev.at("0000:6a:01.0")["metric"],
            "iio_inbound_read_bw (uncore_iio_0 parts 0,1,2, shared with 1 other device)");
  EXPECT_EQ(value("0000:6b:00.0"), "0.400");  // uncore_iio_0 part 4: the QAT
  const auto& nvme = dev.at("0000:16:00.0");
  EXPECT_EQ(nvme["device-name"],
            "Non-Volatile memory controller: Samsung Electronics Co Ltd NVMe SSD Controller PM9A1/PM9A3/980PRO");
  EXPECT_EQ(nvme["metric"], "iio_inbound_read_bw (uncore_iio_2 part 0)");
  EXPECT_EQ(nvme["metric-unit"], "GB/s");
  EXPECT_EQ(dev.at("0000:27:00.0")["metric"], "iio_inbound_read_bw (uncore_iio_4 part 0, shared with 1 other device)");
  EXPECT_EQ(rig.image_change(), "");
}

TEST(IioPerDevice, PerStackCountsEveryPartAndTheIommu) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool(
      "pmu-raw", rig.args({"-M", "iio_inbound_write_bw,iio_iotlb_misses", "--per-stack", "--duration", "1", "-j"}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::string> v;
  for (const auto& j : lines_with(r.out, "pmu"))
    if (j["socket"] == 0) v[j["metric"].get<std::string>() + " " + j["pmu"].get<std::string>()] = j["metric-value"];
  // Inbound writes 4e8/s x 4 B = 1.6 GB/s for share 1. uncore_iio_2 (x1.5): its layout's parts are
  // the root ports at devices 1-8, ch_mask 0xff, shares 1 + 0.5 + ... + 0.875 = 4.5.
  EXPECT_EQ(v["iio_inbound_write_bw (ch_mask=0xff) uncore_iio_2"], "10.800") << r.out;
  // IOTLB misses 1e5/s for share 1: uncore_iio_6 (x3).
  EXPECT_EQ(v["iio_iotlb_misses uncore_iio_6"], "300000.000") << r.out;
  EXPECT_EQ(rig.image_change(), "");
}

// The platform-neutral PCIe names (pmu-exporter's fleet configuration) are the IIO stacks' inbound
// traffic on Intel, bound as --per-stack binds it: every stack with all its parts in ch_mask.
TEST(IioPerDevice, NeutralPcieNamesAreCountedPerStack) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"-M", "pcie_to_device,pcie_from_device", "--duration", "1", "-j"}));
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::string> v;
  for (const auto& j : lines_with(r.out, "metric-value"))  // one row a stack, under "S<socket> <its PMU>"
    v[j["metric"].get<std::string>() + " " + j["socket"].get<std::string>()] = j["metric-value"];
  // Inbound reads 8e8/s x 4 B = 3.2 GB/s for share 1: uncore_iio_2 (x1.5), parts 0-7 (x4.5);
  // uncore_iio_1, the DMI stack (x2), part 7 only (x0.875). Inbound writes are half the reads.
  EXPECT_EQ(v["iio_inbound_read_bw (ch_mask=0xff) S1 uncore_iio_2"], "21.600") << r.out;
  EXPECT_EQ(v["iio_inbound_read_bw (ch_mask=0x80) S1 uncore_iio_1"], "5.600") << r.out;
  EXPECT_EQ(v["iio_inbound_write_bw (ch_mask=0xff) S0 uncore_iio_2"], "10.800") << r.out;
  EXPECT_EQ(v.size(), 40u) << r.out;  // 10 stacks a socket, each metric once
  EXPECT_EQ(rig.image_change(), "");
}

// A stack whose CPUBUSNO entry is not valid has no root bus: the devices behind its root port are
// listed with the reason, and every other device is still counted.
TEST(IioPerDevice, UnmappedDeviceIsListedWithTheReason) {
  test::BundledRig rig("spr-2s");
  {
    // MSM CPUBUSNO_VALID at 0x1a0 of socket 0's MSM (0000:6a:03.0): clear entry 1 (PCIe0, bus 0x15).
    std::fstream f(rig.root / "sys/bus/pci/devices/0000:6a:03.0/config",
                   std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f);
    f.seekg(0x1a0);
    char valid = 0;
    f.read(&valid, 1);
    ASSERT_TRUE(valid & 0x2);
    valid = static_cast<char>(valid & ~0x2);
    f.seekp(0x1a0);
    f.write(&valid, 1);
  }
  rig.before = test::register_image(*rig.machine, rig.found.inventory);  // the patched byte is the baseline
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"-M", "iio_inbound_read_bw", "--per-device", "--duration", "1", "-j"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto dev = by_device(lines_with(r.out, "device"));
  ASSERT_TRUE(dev.count("0000:16:00.0")) << r.out;
  EXPECT_TRUE(dev["0000:16:00.0"]["metric-value"].is_null()) << r.out;
  EXPECT_NE(dev["0000:16:00.0"]["not-counted"].get<std::string>().find("bus 15"), std::string::npos) << r.out;
  EXPECT_EQ(dev.at("0000:38:00.0")["metric-value"], "9.600");
  EXPECT_EQ(rig.image_change(), "");
}

// Granite Rapids: GNR's own outbound read event (UNC_IIO_DATA_REQ_BY_CPU.MEM_READ, 0xC0/0x04), 1e7
// 4-byte units per second for share 1 (40 MB/s). Stacks uncore_iio_4 and _5 only: in the bundled
// gnr-2s the invented MSRs of uncore_iio_0-3 are also those of uncore_mdf_sbo_16-19 on the same
// CPU, so the simulator steps those counters twice (a fault of the machine's data, left to it).
TEST(IioPerDevice, GnrOutboundReadPerDeviceAndRestore) {
  test::BundledRig rig("gnr-2s");
  test::SimProcess sim(rig.root);
  auto r =
      test::run_tool("pmu-raw", rig.args({"-M", "gnr_iio_outbound_read_bw", "--per-device", "--duration", "1", "-j"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = lines_with(r.out, "device");
  auto dev = by_device(lines);
  EXPECT_EQ(lines.size(), 14u) << r.out;
  // uncore_iio_4 (x1.25) part 0: 50 MB/s, shared by the two ports of the ConnectX-7.
  EXPECT_EQ(dev.at("0000:21:00.1")["metric-value"], "0.050");
  EXPECT_EQ(dev.at("0000:21:00.1")["metric"],
            "gnr_iio_outbound_read_bw (uncore_iio_4 part 0, shared with 1 other device)");
  // uncore_iio_5 (x0.75) part 4 (x0.125): 3.75 MB/s.
  EXPECT_EQ(dev.at("0000:51:00.0")["metric-value"], "0.004");
  EXPECT_EQ(dev.at("0000:51:00.0")["device-name"],
            "Ethernet controller: Intel Corporation Ethernet Controller E810-C for SFP");
  EXPECT_EQ(rig.image_change(), "");
}
