// Firmware addresses are checked before any access: a misaligned Intel box control, a discovery
// table MSR holding an impossible address, an MSR range that wraps past 2^64, an APMT page that
// is not page-aligned -- each unit is skipped with a warning naming where it came from, and the
// rest is still found. (Before: release builds programmed unaligned registers, and UBSan saw
// misaligned loads.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "discovered.h"
#include "support/machines.h"

using namespace pmukit;
using json = nlohmann::json;

namespace {

// An Intel machine whose table is behind MSR 0x201e on CPU 0, with these unit groups / raw units.
json msr_table_machine(json units, json raw_units = json::array()) {
  return json{{"name", "t"},
              {"cpuinfo", {{"vendor", "GenuineIntel"}, {"family", 6}, {"model", 143}}},
              {"topology", {{"sockets", 1}, {"cpus_per_die", 2}}},
              {"msr_devices", true},
              {"intel_tables", json::array({{{"msr", {{"cpu", 0}, {"msr", "0x201e"}, {"base", "0x1000000"}}},
                                             {"units", units},
                                             {"raw_units", raw_units}}})}};
}

TEST(FirmwareAddresses, MisalignedMmioBoxControlIsSkipped) {
  auto imc = test::pcm_spr_imc_group();
  imc["box_ctl"][3] = "0xc8b2a801";  // the fourth IMC box, one byte off
  test::Discovered d(msr_table_machine(json::array({imc})));
  EXPECT_TRUE(d.warned("unit 3 (type 6 id 3): skipped: box control 0xc8b2a801")) << d.warnings();
  EXPECT_TRUE(d.warned("is not aligned for 32-bit controls and 64-bit counters")) << d.warnings();
  EXPECT_EQ(d.names().size(), 7u);  // the other seven boxes
}

TEST(FirmwareAddresses, AnMsrRangeThatWrapsIsSkipped) {
  // A raw unit record: 4 counters, control +2, 48 bits, counters +8, MSR access; box control 2^64-2.
  // Table fields: Linux uncore_discovery.h (struct uncore_unit_discovery).
  json raw = json::array({json::array({"0x08300204", "0xfffffffffffffffe", "0x1"})});
  test::Discovered d(msr_table_machine(json::array(), raw));
  EXPECT_TRUE(d.warned("skipped: MSRs 0xfffffffffffffffe+0xc run beyond the 32-bit MSR space")) << d.warnings();
  EXPECT_TRUE(d.names().empty());
}

TEST(FirmwareAddresses, ADiscoveryMsrHoldingAnImpossibleAddressIsNotRead) {
  // MSR 0x710 (the CBB discovery MSR, Linux uncore_discovery.h) holds 1; MSR 0x201e a good table.
  json spec = msr_table_machine(json::array({test::pcm_spr_imc_group()}));
  spec["msrs"] = json::array({{{"cpu", 0}, {"msr", "0x710"}, {"value", 1}}});
  test::Discovered d(spec);
  EXPECT_TRUE(d.warned("MSR 0x710 on CPU 0: discovery table address 0x1 is not 8-byte aligned: skipped"))
      << d.warnings();
  EXPECT_EQ(d.names().size(), 8u);  // the good table (MSR 0x201e) is still read
}

TEST(FirmwareAddresses, AnApmtPageThatIsNotPageAlignedIsSkipped) {
  auto node = [](int id, const char* base0) {
    return json{{"id", id},
                {"type", "mc"},
                {"base0", base0},
                {"proc_affinity", 0},
                {"registers", {{"pmcfgr", "0x5f07"}, {"pmcr", "0x0"}, {"pmiidr", "0x2cf0036b"}}}};
  };
  json spec{{"name", "t"},
            {"cpuinfo", {{"vendor", ""}, {"implementer", "0x41"}}},
            {"topology", {{"sockets", 2}, {"cpus_per_die", 2}}},
            {"acpi_processors", {{"containers", true}}},
            {"apmt", {{"nodes", json::array({node(0, "0x10000000"), node(1, "0x10010801")})}}}};
  test::Discovered d(spec);
  // The second node starts at 36 + 56 = 0x5c (ACPI header, then 56-byte nodes: Arm DEN0117).
  EXPECT_TRUE(d.warned("APMT node 1 (id 0x1) @0x5c: skipped: base0 0x10010801 is not a 4 KiB-aligned page address"))
      << d.warnings();
  EXPECT_EQ(d.names().size(), 1u);
}

}  // namespace
