// Intel PMON discovery end to end on snapshot machines: finding tables, decoding, topology,
// names and quirks. Each rule of the issue has a fixture that fails without it.
#include <gtest/gtest.h>

#include <fstream>

#include "discovered.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/register_window.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/machines.h"
#include "support/test_support.h"

using namespace pmukit;
using discovery::IntelUnit;
using json = nlohmann::json;

using test::Discovered;
using test::noted;

namespace {

json one_table(json units, json extra = json::object()) {
  json t{{"device", "0000:6a:03.1"}, {"bar", 0}, {"stride", 4}, {"units", std::move(units)}};
  if (extra.is_object()) t.update(extra);
  return json::array({t});
}

json spr_with(json units, json extra = json::object(), int model = 143) {
  return test::intel_machine(model, json::array({test::pmon_device("0000:6a:03.1", 0, "0x206fffe00000")}),
                             one_table(std::move(units), extra));
}

json msr_group(int type, const std::string& ids, const std::string& box, int ctl_offset = 2, int ctr_offset = 8) {
  return json{{"type", type},        {"ids", ids},    {"access", "msr"},          {"box_ctl", box},
              {"id_stride", "0x10"}, {"num_regs", 4}, {"ctl_offset", ctl_offset}, {"ctr_offset", ctr_offset},
              {"width", 48}};
}

}  // namespace

TEST(IntelDiscovery, PcmSprImcBoxesDecodeExactly) {
  Discovered d(spr_with(json::array({test::pcm_spr_imc_group()})));
  ASSERT_EQ(d.r.inventory.units.size(), 8u) << d.warnings();
  const std::uint64_t box_ctl[] = {0xc8aa2800, 0xc8aaa800, 0xc8b22800, 0xc8b2a800,
                                   0xc8ba2800, 0xc8baa800, 0xc8c22800, 0xc8c2a800};
  for (int i = 0; i < 8; ++i) {
    const auto* u = d.unit("uncore_imc_" + std::to_string(i));
    ASSERT_NE(u, nullptr) << i;
    const auto& iu = *u->as<IntelUnit>();
    EXPECT_EQ(iu.type, 6);
    EXPECT_EQ(iu.box_id, i);
    EXPECT_EQ(iu.access, discovery::RegAccess::Mmio);
    EXPECT_EQ(iu.box_ctl, box_ctl[i]);
    EXPECT_EQ(u->num_counters, 4u);
    EXPECT_EQ(u->counter_width, 48u);
    EXPECT_EQ(iu.ctl_offset, 64u);
    EXPECT_EQ(iu.ctr_offset, 8u);
    // MMIO controls are 32-bit registers 4 bytes apart; counters are 64-bit, 8 apart.
    EXPECT_EQ(iu.ctl, (std::vector<std::uint64_t>{box_ctl[i] + 64, box_ctl[i] + 68, box_ctl[i] + 72, box_ctl[i] + 76}));
    EXPECT_EQ(iu.ctr, (std::vector<std::uint64_t>{box_ctl[i] + 8, box_ctl[i] + 16, box_ctl[i] + 24, box_ctl[i] + 32}));
    EXPECT_EQ(u->type_name, "imc");
    EXPECT_EQ(u->socket, 0);
  }
  EXPECT_EQ(*d.unit("uncore_imc_0")->as<IntelUnit>()->fixed_ctr, 0xc8aa2800u + 0x38);  // platform data
}

TEST(IntelDiscovery, AccessTypesAndRegisterSteps) {
  json units = json::array({msr_group(0, "0-1", "0x2000", 2, 8),
                            json{{"type", 12},
                                 {"ids", "0"},
                                 {"access", "mmio"},
                                 {"box_ctl", "0xc9000000"},
                                 {"num_regs", 8},
                                 {"ctl_offset", "0x10"},
                                 {"ctr_offset", "0x90"},
                                 {"width", 48}},
                            json{{"type", 7},
                                 {"ids", "0"},
                                 {"access", "pci"},
                                 {"pci", "0000:7e:0c.0"},
                                 {"pci_offset", "0x438"},
                                 {"pci_id", "8086:324a"},
                                 {"num_regs", 4},
                                 {"ctl_offset", "0x30"},
                                 {"ctr_offset", 8},
                                 {"width", 48}}});
  Discovered d(spr_with(units));
  ASSERT_EQ(d.r.inventory.units.size(), 4u) << d.warnings();
  const auto& cha = *d.unit("uncore_cha_1")->as<IntelUnit>();
  EXPECT_EQ(cha.ctl, (std::vector<std::uint64_t>{0x2012, 0x2013, 0x2014, 0x2015}));  // MSR step 1
  EXPECT_EQ(cha.ctr, (std::vector<std::uint64_t>{0x2018, 0x2019, 0x201a, 0x201b}));
  EXPECT_EQ(cha.msr_cpu, 0);
  const auto& cxl = *d.unit("uncore_cxlcm")->as<IntelUnit>();
  EXPECT_EQ(cxl.ctl_step, 8u);  // CXL types: controls 8 bytes apart (UNCORE_BOX_FLAG_CTL_OFFS8)
  EXPECT_EQ(cxl.ctl[1], 0xc9000018u);
  const auto& m2m = *d.unit("uncore_m2m")->as<IntelUnit>();
  EXPECT_EQ(m2m.pci_device->str(), "0000:7e:0c.0");
  EXPECT_EQ(m2m.box_ctl, 0x438u);
  EXPECT_EQ(m2m.ctl, (std::vector<std::uint64_t>{0x468, 0x470, 0x478, 0x480}));
  EXPECT_EQ(m2m.ctr, (std::vector<std::uint64_t>{0x440, 0x448, 0x450, 0x458}));
}

TEST(IntelDiscovery, PciAddressDecodesTheDomain) {
  json units = json::array({json{{"type", 21},
                                 {"ids", "0"},
                                 {"access", "pci"},
                                 {"pci", "0005:80:10.2"},
                                 {"pci_offset", "0x620"},
                                 {"num_regs", 4},
                                 {"ctl_offset", "0x10"},
                                 {"ctr_offset", "0x30"}}});
  Discovered d(spr_with(units, {}, 173));
  ASSERT_EQ(d.r.inventory.units.size(), 1u) << d.warnings();
  const auto& iu = *d.r.inventory.units[0].as<IntelUnit>();
  EXPECT_EQ(iu.pci_device->str(), "0005:80:10.2");  // domain from bits 30:28
  EXPECT_EQ(d.r.inventory.units[0].name, "uncore_pciex16");
}

TEST(IntelDiscovery, NotTiedToOneDeviceId) {
  // Diamond Rapids uses 8086:09a1; any Intel device with a PMON DVSEC is a table.
  json spec = test::intel_machine(
      143, json::array({test::pmon_device("0000:00:03.1", 0, "0x2000000000", "0x2000", "09a1")}),
      json::array({json{{"device", "0000:00:03.1"}, {"units", json::array({msr_group(4, "0", "0x2fc0")})}}}));
  Discovered d(spec);
  ASSERT_EQ(d.r.inventory.intel_tables.size(), 1u);
  EXPECT_TRUE(d.unit("uncore_pcu"));
}

TEST(IntelDiscovery, RejectsBitsOutsideBir) {
  json dev = test::pmon_device("0000:6a:03.1", 0, "0x206fffe00000");
  dev["config_writes"] = json::array({json{{"at", "0x10c"}, {"u32", "0x10"}}});
  Discovered d(test::intel_machine(143, json::array({dev}), one_table(json::array({msr_group(4, "0", "0x2fc0")}))));
  EXPECT_TRUE(d.r.inventory.intel_tables.empty());
  EXPECT_TRUE(d.warned("0000:6a:03.1 DVSEC @0x100: +0xc = 0x10 has bits outside BIR[2:0]")) << d.warnings();
}

TEST(IntelDiscovery, BarOfZeroIsSkippedWithAWarning) {
  json dev = test::pmon_device("0000:6a:03.1", 0, "0x206fffe00000");
  dev["config_writes"] = json::array({json{{"at", "0x10"}, {"u32", 4}}, json{{"at", "0x14"}, {"u32", 0}}});
  Discovered d(test::intel_machine(143, json::array({dev}), one_table(json::array({msr_group(4, "0", "0x2fc0")}))));
  EXPECT_TRUE(d.r.inventory.intel_tables.empty());
  EXPECT_TRUE(d.warned("BAR0 is 0 (not assigned)")) << d.warnings();
}

TEST(IntelDiscovery, PrefetchableBarIsRejected) {
  json dev = test::pmon_device("0000:6a:03.1", 0, "0x206fffe00000");
  dev["bars"][0]["prefetchable"] = true;
  Discovered d(test::intel_machine(143, json::array({dev}), one_table(json::array({msr_group(4, "0", "0x2fc0")}))));
  EXPECT_TRUE(d.warned("is not a non-prefetchable memory BAR")) << d.warnings();
}

TEST(IntelDiscovery, SkippedUnitsAreReportedWithReasons) {
  json raw = json::array({json::array({"0xffffffffffffffff", "0xffffffffffffffff", "0xffffffffffffffff"}),
                          json::array({"0xc000000004300804", "0x3000", "0x10009"}),  // access type 3
                          json::array({"0x0000000004300004", "0x3000", "0x2000a"}),  // ctl offset 0
                          json::array({"0x0000000004300804", "0x2fc0", "0x4"}),      // duplicate pcu 0
                          json::array({"0x0000000004300804", "0x0", "0x1000b"}),     // box control 0
                          json::array({"0x0000000000300804", "0x3000", "0x1000c"}),  // counter offset 0
                          json::array({"0x0000000004000804", "0x3000", "0x1000d"}),  // 0-bit counters
                          json::array({"0x0", "0x0", "0x0"})});                      // padding
  Discovered d(spr_with(json::array({msr_group(4, "0", "0x2fc0")}), {{"raw_units", raw}}));
  ASSERT_EQ(d.r.inventory.units.size(), 1u);
  EXPECT_TRUE(d.warned("unit 1 @+0x40: skipped: reads all ones")) << d.warnings();
  EXPECT_TRUE(d.warned("unit 2 @+0x60 (type 9 id 1): skipped: unsupported access type 3")) << d.warnings();
  EXPECT_TRUE(d.warned("unit 3 @+0x80 (type 10 id 2): skipped: zero control offset")) << d.warnings();
  EXPECT_TRUE(d.warned("unit 4 @+0xa0 (type 4 id 0): skipped: duplicate of unit 0")) << d.warnings();
  EXPECT_TRUE(d.warned("unit 5 @+0xc0: skipped: invalid record 0x4300804 0x0 0x1000b")) << d.warnings();
  EXPECT_TRUE(d.warned("unit 6 @+0xe0 (type 12 id 1): skipped: zero counter offset")) << d.warnings();
  EXPECT_TRUE(d.warned("unit 7 @+0x100 (type 13 id 1): skipped: 4 counters of 0 bits")) << d.warnings();
  EXPECT_FALSE(d.warned("unit 8 @")) << "padding is not a problem: " << d.warnings();
  EXPECT_EQ(d.r.inventory.intel_tables[0].skipped_units, 7u);
  EXPECT_EQ(d.r.inventory.intel_tables[0].empty_records, 1u);
}

TEST(IntelDiscovery, StrideZeroWithMaxUnits1023ReadsNothing) {
  Discovered d(spr_with(json::array(), {{"raw_global", json::array({"0x3ff0000", "0x2ff0", "0"})}}));
  ASSERT_EQ(d.r.inventory.intel_tables.size(), 1u);
  EXPECT_TRUE(d.r.inventory.units.empty());
  EXPECT_TRUE(d.warned("stride 0 bytes cannot hold 1023 unit records")) << d.warnings();
}

TEST(IntelDiscovery, TableRunningPastItsBarKeepsWhatFits) {
  // 300 units x 32 bytes need 9.6 KiB; the BAR is 8 KiB.
  json units = json::array({msr_group(0, "0-299", "0x2000")});
  Discovered d(spr_with(units));
  EXPECT_EQ(d.r.inventory.units.size(), 255u);
  EXPECT_TRUE(d.warned("table runs past the end of its 0x2000-byte window: units 255..299 not read")) << d.warnings();
}

TEST(IntelDiscovery, AllOnesTableMeansDeviceGone) {
  Discovered d(
      spr_with(json::array(),
               {{"raw_global", json::array({"0xffffffffffffffff", "0xffffffffffffffff", "0xffffffffffffffff"})}}));
  EXPECT_TRUE(d.r.inventory.units.empty());
  EXPECT_TRUE(d.warned("invalid global discovery record")) << d.warnings();
  EXPECT_TRUE(d.warned("device gone?")) << d.warnings();
}

TEST(IntelDiscovery, UnitAddressProblemsAreSkippedNotFatal) {
  json units = json::array({json{{"type", 7},
                                 {"ids", "0"},
                                 {"access", "pci"},
                                 {"pci", "0000:7e:0c.0"},
                                 {"pci_offset", "0xff0"},
                                 {"num_regs", 4},
                                 {"ctl_offset", "0x30"},
                                 {"ctr_offset", 8}},
                            msr_group(4, "0", "0x2fc0")});
  json raw = json::array({json::array({"0x0000000008300804", "0x10000000000000", "0x60006"}),  // MMIO beyond 2^52
                          json::array({"0x8000000008300804", "0x7f00438", "0x70007"})});       // PCI device absent
  raw[0][0] = "0x4000000008300804";
  Discovered d(spr_with(units, {{"raw_units", raw}}));
  EXPECT_TRUE(d.unit("uncore_pcu")) << d.warnings();
  EXPECT_TRUE(d.warned("registers run past 0000:7e:0c.0 config space")) << d.warnings();
  EXPECT_TRUE(d.warned("outside the physical address space")) << d.warnings();
  EXPECT_TRUE(d.warned("its PCI device 0000:7f:00.0 does not exist")) << d.warnings();
}

// A box whose registers begin inside a PCI BAR and run past its end cannot be reached through
// that BAR's resource file, nor safely through dev/mem: skipped, with the range named.
TEST(IntelDiscovery, RegistersStraddlingABarEndAreSkipped) {
  json units = json::array({json{{"type", 6},
                                 {"ids", "0-1"},
                                 {"access", "mmio"},
                                 {"box_ctl", json::array({"0xd0000000", "0xd0000fe0"})},
                                 {"num_regs", 4},
                                 {"ctl_offset", 64},
                                 {"ctr_offset", 8},
                                 {"width", 48}}});
  json devices = json::array({test::pmon_device("0000:6a:03.1", 0, "0x206fffe00000"),
                              test::pmon_device("0000:6a:04.0", 0, "0xd0000000", "0x1000", "0b26")});
  Discovered d(test::intel_machine(143, devices, one_table(units)));
  ASSERT_EQ(d.r.inventory.units.size(), 1u) << d.warnings();
  EXPECT_TRUE(d.unit("uncore_imc"));  // the one box left: named without a number, as the kernel does
  EXPECT_TRUE(d.warned("(type 6 id 1): skipped: registers 0xd0000fe0..0xd0001037 straddle the end of a PCI BAR"))
      << d.warnings();
}

TEST(IntelDiscovery, OneMappingPerTable) {
  json units = json::array({msr_group(0, "0-31", "0x2000"), test::pcm_spr_imc_group()});
  Discovered d(spr_with(units));
  EXPECT_EQ(d.r.inventory.units.size(), 40u);
  EXPECT_EQ(d.mmaps, 1u);
}

TEST(IntelDiscovery, DumpFilesMapThroughDevMemInTwoSteps) {
  // A dump has BAR registers but no sizes: the table is read through dev/mem.
  test::TempDir dump_dir;
  // dev/mem is a sparse file: keep the table below ext4's 16 TiB file-size limit.
  json spec = spr_with(json::array({test::pcm_spr_imc_group()}));
  spec["pci_devices"][0]["bars"][0]["base"] = "0x2fffe00000";
  Discovered live(spec);
  std::string sysfs = (live.dir.path() / "m/sys/bus/pci").string();
  auto lspci = test::run_program("lspci", {"-A", "linux-sysfs", "-O", "sysfs.path=" + sysfs, "-D", "-xxxx"});
  if (lspci.status != 0) GTEST_SKIP() << "lspci unavailable";
  // Put the table where dev/mem can find it, as on real hardware.
  auto table = live.dir.path() / "m/sys/bus/pci/devices/0000:6a:03.1/resource0";
  std::ifstream in(table, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  snapshot::SnapshotBuilder b(live.dir.path() / "m");
  std::filesystem::remove_all(live.dir.path() / "m/sys/bus/pci/devices");
  b.write_phys(0x2fffe00000ull, bytes);
  std::ofstream(dump_dir / "d.txt") << lspci.out;
  MachineOptions o{live.dir.path() / "m"};
  o.pci_dump = dump_dir / "d.txt";
  Machine m(o);
  const auto before = RegisterWindow::mmap_calls();
  auto r = families::discover(m);
  EXPECT_EQ(r.inventory.units.size(), 8u);
  EXPECT_EQ(RegisterWindow::mmap_calls() - before, 1u);  // the whole 8-unit table fits in the first page
  EXPECT_NE(r.inventory.intel_tables.at(0).mapped_through.find("dev/mem"), std::string::npos);
}

TEST(IntelDiscovery, SocketsFromNumaThroughCpuPackages) {
  json devs = json::array(
      {test::pmon_device("0000:6a:03.1", 1, "0x206fffe00000"), test::pmon_device("0000:e7:03.1", 0, "0x306fffe00000")});
  json tables = json::array({json{{"device", "0000:6a:03.1"}, {"units", json::array({msr_group(4, "0", "0x2fc0")})}},
                             json{{"device", "0000:e7:03.1"}, {"units", json::array({msr_group(4, "0", "0x2fc0")})}}});
  Discovered d(test::intel_machine(143, devs, tables));
  ASSERT_EQ(d.r.inventory.intel_tables.size(), 2u);
  EXPECT_EQ(d.r.inventory.intel_tables[0].socket, 1);  // node 1 -> cpulist 2,3 -> package 1
  EXPECT_EQ(d.r.inventory.intel_tables[0].socket_source, "NUMA node 1");
  EXPECT_EQ(d.r.inventory.intel_tables[1].socket, 0);
  for (const auto& u : d.r.inventory.units)
    EXPECT_EQ(u.as<IntelUnit>()->msr_cpu, u.socket == 1 ? 2 : 0);  // first CPU of the socket
  EXPECT_EQ(d.unit("uncore_pcu")->name, "uncore_pcu");             // one box id across sockets: no suffix
}

TEST(IntelDiscovery, UnknownNumaFallsBackToOrderFound) {
  json devs = json::array({test::pmon_device("0000:6a:03.1", -1, "0x206fffe00000"),
                           test::pmon_device("0000:e7:03.1", -1, "0x306fffe00000")});
  json tables = json::array({json{{"device", "0000:6a:03.1"}, {"units", json::array({msr_group(4, "0", "0x2fc0")})}},
                             json{{"device", "0000:e7:03.1"}, {"units", json::array({msr_group(4, "0", "0x2fc0")})}}});
  Discovered d(test::intel_machine(143, devs, tables));
  ASSERT_EQ(d.r.inventory.intel_tables.size(), 2u);
  EXPECT_EQ(d.r.inventory.intel_tables[1].socket, 1);
  EXPECT_EQ(d.r.inventory.intel_tables[1].socket_source, "order found (NUMA node unknown)");
}

TEST(IntelDiscovery, SeveralTablesPerSocketBecomeDies) {
  json devs = json::array({test::pmon_device("0000:00:03.1", 0, "0x2c0000000000", "0x4000"),
                           test::pmon_device("0000:40:03.1", 0, "0x2c0010000000", "0x4000"),
                           test::pmon_device("0000:80:03.1", 1, "0x3c0000000000", "0x4000")});
  json tables = json::array();
  for (const char* bdf : {"0000:00:03.1", "0000:40:03.1", "0000:80:03.1"})
    tables.push_back(json{{"device", bdf}, {"units", json::array({msr_group(0, "0-1", "0x2000")})}});
  Discovered d(test::intel_machine(173, devs, tables));
  const auto& t = d.r.inventory.intel_tables;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(std::pair(t[0].socket, t[0].die), std::pair(0, 0));
  EXPECT_EQ(std::pair(t[1].socket, t[1].die), std::pair(0, 1));
  EXPECT_EQ(std::pair(t[2].socket, t[2].die), std::pair(1, 0));
}

TEST(IntelDiscovery, MsrDiscoveryTable) {
  json spec = test::intel_machine(143, json::array(), json::array());
  spec["intel_tables"] = json::array({json{{"msr", {{"cpu", 2}, {"msr", "0x201e"}, {"base", "0xfe000000"}}},
                                           {"units", json::array({msr_group(4, "0", "0x2fc0")})}}});
  Discovered d(spec);
  ASSERT_EQ(d.r.inventory.intel_tables.size(), 1u) << d.warnings();
  EXPECT_EQ(d.r.inventory.intel_tables[0].source, "MSR 0x201e on CPU 2");
  EXPECT_EQ(d.r.inventory.intel_tables[0].socket, 1);
  EXPECT_TRUE(d.unit("uncore_pcu"));
}

TEST(IntelDiscovery, KernelPmuNames) {
  json units = json::array({test::pcm_spr_imc_group(), msr_group(4, "0", "0x2fc0"), msr_group(10, "0-1", "0x3800"),
                            msr_group(10, "5", "0x3900")});
  units[3]["ids"] = "5";
  Discovered d(spr_with(units));
  EXPECT_TRUE(d.unit("uncore_imc_7"));      // several boxes: uncore_<name>_<box_id>
  EXPECT_TRUE(d.unit("uncore_pcu"));        // one box: uncore_<name>
  EXPECT_TRUE(d.unit("uncore_type_10_5"));  // unnamed type: uncore_type_<type>_<box_id>
  EXPECT_EQ(d.r.inventory.find("uncore_imc").size(), 8u);
  EXPECT_EQ(d.r.inventory.find("uncore_imc_3").size(), 1u);
  EXPECT_TRUE(d.r.inventory.find("uncore_im").empty());
}

TEST(IntelDiscovery, UnknownModelStillDecodesWithGenericNames) {
  Discovered d(spr_with(json::array({test::pcm_spr_imc_group()}), {}, 0x99));
  EXPECT_TRUE(d.r.inventory.platform.empty());
  EXPECT_EQ(d.r.inventory.units.size(), 8u);
  EXPECT_TRUE(d.unit("uncore_type_6_3"));
  EXPECT_EQ(d.unit("uncore_type_6_3")->pmu_kind, "intel_generic");
}

TEST(IntelDiscovery, SprUpiTablesAreFlagged) {
  json units = json::array({json{{"type", 8},
                                 {"ids", "0-1"},
                                 {"access", "pci"},
                                 {"pci", json::array({"0000:7e:01.1", "0000:7e:02.1"})},
                                 {"pci_offset", "0x318"},
                                 {"num_regs", 4},
                                 {"ctl_offset", "0x38"},
                                 {"ctr_offset", 8}}});
  Discovered spr(spr_with(units));
  ASSERT_TRUE(spr.unit("uncore_upi_1"));
  ASSERT_EQ(spr.unit("uncore_upi_1")->notes.size(), 1u);
  EXPECT_NE(spr.unit("uncore_upi_1")->notes[0].find("unreliable"), std::string::npos);
  Discovered gnr(spr_with(units, {}, 173));  // fixed on GNR production parts
  EXPECT_TRUE(gnr.unit("uncore_upi_1")->notes.empty());
}

TEST(IntelDiscovery, SprChaCountComesFromMsr2ffe) {
  json spec = spr_with(json::array({msr_group(0, "0-5", "0x2000")}));
  spec["msrs"] = json::array({json{{"cpu", 0}, {"msr", "0x2ffe"}, {"value", 4}}});
  Discovered d(spec);
  EXPECT_EQ(d.r.inventory.find("uncore_cha").size(), 4u);
  EXPECT_FALSE(d.unit("uncore_cha_4"));
  EXPECT_TRUE(d.warned("the table lists 6 CHAs, MSR 0x2ffe on CPU 0 says 4")) << d.warnings();
  json emr = spec;  // the MSR reads 0 on EMR XCC: the table's count stays
  emr["msrs"][0]["value"] = 0;
  Discovered e(emr);
  EXPECT_EQ(e.r.inventory.find("uncore_cha").size(), 6u);
}
