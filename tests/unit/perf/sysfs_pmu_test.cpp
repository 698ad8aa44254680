// read_pmu / list_pmus / find_pmus on fake event_source trees shaped like real uncore PMUs, and
// the encoder's words for events on them.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "pmu_tree.h"
#include "pmukit/access/machine.h"
#include "pmukit/perf/event_set.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"
#include "support/test_support.h"

using namespace pmukit;
using namespace pmukit::perf;

namespace {

syntax::EncodedEvent encode_on(const SysfsPmu& pmu, std::string_view text) {
  return syntax::encode(syntax::parse_event_list(text).at(0), pmu.desc);
}

std::vector<std::string> names(const std::vector<SysfsPmu>& pmus) {
  std::vector<std::string> out;
  for (const auto& p : pmus) out.push_back(p.name());
  return out;
}

std::string error_of(const Machine& m, std::string_view pmu) {
  try {
    read_pmu(m, pmu);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << pmu << " read without error";
  return "";
}

class SysfsPmuTest : public ::testing::Test {
 protected:
  test::TempDir dir;
  snapshot::SnapshotBuilder b{dir.path()};
  Machine machine() { return Machine(MachineOptions{dir.path()}); }
  std::string devices() { return (dir.path() / "sys/bus/event_source/devices").string(); }
  std::filesystem::path dir_of(const std::string& pmu) { return dir.path() / "sys/bus/event_source/devices" / pmu; }
};

}  // namespace

TEST_F(SysfsPmuTest, UncoreImcLikeSapphireRapids) {
  test::add_spr_imc(b, "uncore_imc_0", "24");
  Machine m = machine();
  auto pmu = read_pmu(m, "uncore_imc_0");
  ASSERT_TRUE(pmu);
  EXPECT_EQ(pmu->name(), "uncore_imc_0");
  EXPECT_EQ(pmu->type, 24u);
  EXPECT_EQ(pmu->cpumask, std::vector<int>{0});
  EXPECT_EQ(pmu->mux_interval_ms, 4u);
  EXPECT_EQ(pmu->desc.formats.size(), 5u);
  EXPECT_EQ(syntax::format_text(pmu->desc.formats.at("umask")), "config:8-15,32-55");
  ASSERT_EQ(pmu->desc.aliases.size(), 3u);
  const auto& rd = pmu->desc.aliases.at("cas_count_read");
  EXPECT_EQ(rd.terms, "event=0x04,umask=0x03");
  EXPECT_DOUBLE_EQ(rd.scale, 6.103515625e-5);
  EXPECT_EQ(rd.unit, "MiB");
  EXPECT_DOUBLE_EQ(pmu->desc.aliases.at("clockticks").scale, 1.0);
  EXPECT_EQ(pmu->desc.aliases.at("clockticks").unit, "");

  auto cas = encode_on(*pmu, "uncore_imc_0/cas_count_read/");
  EXPECT_EQ(cas.config, 0x0304u);
  EXPECT_EQ(cas.config1, 0u);
  EXPECT_DOUBLE_EQ(cas.scale, 6.103515625e-5);
  EXPECT_EQ(cas.unit, "MiB");
  EXPECT_EQ(encode_on(*pmu, "uncore_imc_0/event=0,umask=0x320/").config, 0x0000000300002000ull);
  EXPECT_EQ(encode_on(*pmu, "uncore_imc_0/cas_count_write,thresh=1,edge/").config, 0x1040c04u);
}

TEST_F(SysfsPmuTest, NvidiaPcieFiltersInConfig1AndConfig2) {
  test::add_nvidia_pcie(b);
  auto pmu = read_pmu(machine(), "nvidia_pcie_pmu_0_rc_1");
  ASSERT_TRUE(pmu);
  EXPECT_EQ(pmu->type, 31u);
  EXPECT_FALSE(pmu->mux_interval_ms);
  auto e = encode_on(*pmu, "nvidia_pcie_pmu_0_rc_1/rd_bytes,src_bdf=0x0108,src_bdf_en,dst_loc_cmem/");
  EXPECT_EQ(e.config, 0u);
  EXPECT_EQ(e.config1, 0x01010800u);
  EXPECT_EQ(e.config2, 0x1u);
  auto c = encode_on(*pmu, "nvidia_pcie_pmu_0_rc_1/cycles,src_rp_mask=0x3,dst_rem/");
  EXPECT_EQ(c.config, 0x100000000ull);
  EXPECT_EQ(c.config1, 0x3u);
  EXPECT_EQ(c.config2, 0x10u);
}

TEST_F(SysfsPmuTest, DesignWareRootPort) {
  test::add_dwc_rootport(b);
  auto pmu = read_pmu(machine(), "dwc_rootport_3018");
  ASSERT_TRUE(pmu);
  EXPECT_EQ(pmu->cpumask, std::vector<int>{1});
  EXPECT_EQ(encode_on(*pmu, "dwc_rootport_3018/tx_memory_write,lane=3/").config, 0x310700u);
  EXPECT_EQ(encode_on(*pmu, "dwc_rootport_3018/tx_pcie_tlp_data_payload/").config, 0x20u);
  EXPECT_EQ(encode_on(*pmu, "dwc_rootport_3018/eventid=0x1,type=0x0/").config, 0x1u);
  EXPECT_THROW(encode_on(*pmu, "dwc_rootport_3018/tx_memory_write/"), UsageError);
}

TEST_F(SysfsPmuTest, AbsentPmuAndBadNames) {
  test::add_msr_and_software(b);
  Machine m = machine();
  EXPECT_FALSE(read_pmu(m, "uncore_imc_0"));
  EXPECT_FALSE(read_pmu(m, ""));
  EXPECT_FALSE(read_pmu(m, ".."));
  EXPECT_FALSE(read_pmu(m, "msr/events"));
}

TEST_F(SysfsPmuTest, SoftwarePmuHasNoFormatsAndAnyCpu) {
  test::add_msr_and_software(b);
  auto sw = read_pmu(machine(), "software");
  ASSERT_TRUE(sw);
  EXPECT_EQ(sw->type, 1u);
  EXPECT_TRUE(sw->cpumask.empty());
  EXPECT_TRUE(sw->desc.formats.empty());
  EXPECT_TRUE(sw->desc.aliases.empty());
  EXPECT_EQ(encode_on(*sw, "software/config=1/").config, 1u);
  EXPECT_THROW(encode_on(*sw, "software/cpu-clock/"), UsageError);  // as perf: unknown term
}

TEST_F(SysfsPmuTest, HybridCpusFileStandsInForCpumask) {
  test::add_pmu(b, "cpu_atom", {{"type", "10\n"}, {"cpus", "16-23\n"}});
  auto pmu = read_pmu(machine(), "cpu_atom");
  ASSERT_TRUE(pmu);
  EXPECT_EQ(pmu->cpumask, (std::vector<int>{16, 17, 18, 19, 20, 21, 22, 23}));
}

TEST_F(SysfsPmuTest, PerPkgAndSnapshotFlagsAreKept) {
  test::add_pmu(b, "uncore_iio_free_running_0",
                {{"type", "40\n"},
                 {"cpumask", "0,56\n"},
                 {"format/event", "config:0-7\n"},
                 {"format/umask", "config:8-15\n"},
                 {"events/ioclk", "event=0xff,umask=0x10\n"},
                 {"events/ioclk.per-pkg", "1\n"},
                 {"events/bw_in_port0", "event=0xff,umask=0x20\n"},
                 {"events/bw_in_port0.snapshot", "1\n"},
                 {"events/orphan.unit", "MiB\n"}});
  auto pmu = read_pmu(machine(), "uncore_iio_free_running_0");
  ASSERT_TRUE(pmu);
  EXPECT_EQ(pmu->cpumask, (std::vector<int>{0, 56}));
  EXPECT_EQ(pmu->per_pkg, std::set<std::string>{"ioclk"});
  EXPECT_EQ(pmu->snapshot, std::set<std::string>{"bw_in_port0"});
  EXPECT_EQ(pmu->desc.aliases.size(), 2u);  // orphan.unit belongs to no alias
}

TEST_F(SysfsPmuTest, ListIsInNaturalOrder) {
  for (const char* n : {"uncore_imc_10", "uncore_imc_2", "uncore_imc_0", "uncore_imc_1"}) test::add_spr_imc(b, n, "24");
  test::add_msr_and_software(b);
  EXPECT_EQ(names(list_pmus(machine())), (std::vector<std::string>{"msr", "software", "uncore_imc_0", "uncore_imc_1",
                                                                   "uncore_imc_2", "uncore_imc_10"}));
}

TEST_F(SysfsPmuTest, FindMatchesPmuInstancesLikePerf) {
  for (const char* n : {"uncore_imc_10", "uncore_imc_2", "uncore_imc_0", "uncore_imc_1"}) test::add_spr_imc(b, n, "24");
  test::add_pmu(b, "uncore_imc_free_running_0", {{"type", "41\n"}, {"cpumask", "0\n"}});
  test::add_nvidia_pcie(b);
  test::add_dwc_rootport(b);
  Machine m = machine();
  std::vector<std::string> boxes{"uncore_imc_0", "uncore_imc_1", "uncore_imc_2", "uncore_imc_10"};
  EXPECT_EQ(names(find_pmus(m, "uncore_imc")), boxes);
  EXPECT_EQ(names(find_pmus(m, "imc")), boxes);
  EXPECT_EQ(names(find_pmus(m, "uncore_imc_1")), std::vector<std::string>{"uncore_imc_1"});
  EXPECT_EQ(names(find_pmus(m, "uncore_imc_free_running")), std::vector<std::string>{"uncore_imc_free_running_0"});
  EXPECT_EQ(names(find_pmus(m, "dwc_rootport")), std::vector<std::string>{"dwc_rootport_3018"});
  EXPECT_EQ(names(find_pmus(m, "uncore_imc_*")).size(), 5u);
  EXPECT_EQ(names(find_pmus(m, "imc_[01]")), (std::vector<std::string>{"uncore_imc_0", "uncore_imc_1"}));
  // perf 6.1 wants only digits after the name, so the "_0_rc_1" instances are not found by prefix.
  EXPECT_TRUE(find_pmus(m, "nvidia_pcie_pmu").empty());
  EXPECT_TRUE(find_pmus(m, "uncore_cha").empty());
}

TEST_F(SysfsPmuTest, MalformedFilesAreErrorsNamingTheFile) {
  std::string root = devices();
  test::add_pmu(b, "bad_type", {{"type", "twenty\n"}});
  EXPECT_EQ(error_of(machine(), "bad_type"), root + "/bad_type/type: 'twenty' is not a PMU type number");

  test::add_pmu(b, "no_type", {{"format/event", "config:0-7\n"}});
  EXPECT_EQ(error_of(machine(), "no_type"), root + "/no_type/type: missing or unreadable (every PMU has a type)");

  test::add_pmu(b, "bad_format", {{"type", "30\n"}, {"format/umask", "config:15-8\n"}});
  EXPECT_EQ(error_of(machine(), "bad_format"),
            root + "/bad_format/format/umask: format 'umask': 'config:15-8': range 15-8 is "
                   "reversed");

  test::add_pmu(b, "bad_scale", {{"type", "30\n"}, {"events/rd", "event=0x1\n"}, {"events/rd.scale", "fast\n"}});
  EXPECT_EQ(error_of(machine(), "bad_scale"), root + "/bad_scale/events/rd.scale: 'fast' is not a scale factor");

  test::add_pmu(b, "bad_alias", {{"type", "30\n"}, {"events/rd", "event=0x1,,umask=2\n"}});
  EXPECT_EQ(error_of(machine(), "bad_alias"),
            root + "/bad_alias/events/rd: terms 'event=0x1,,': empty term after ',' (column 10)");

  test::add_pmu(b, "bad_mask", {{"type", "30\n"}, {"cpumask", "0-x\n"}});
  EXPECT_EQ(error_of(machine(), "bad_mask"), root + "/bad_mask/cpumask: '0-x' is not a CPU list");

  // list_pmus reads everything, so one broken PMU is reported there too.
  EXPECT_THROW(list_pmus(machine()), Error);
}

TEST_F(SysfsPmuTest, OneMalformedPmuFailsOnlyEventsOnIt) {
  // uncore_imc_3's cpumask is junk: events on uncore_imc_0 and on other PMUs still bind, events
  // on uncore_imc_3 (by name, or by an alias it lists) fail naming its file.
  test::add_spr_imc(b, "uncore_imc_0", "24");
  test::add_spr_imc(b, "uncore_imc_3", "27");
  test::add_msr_and_software(b);
  b.write_text("/sys/bus/event_source/devices/uncore_imc_3/cpumask", "0-x\n");
  Machine m = machine();
  std::vector<PmuError> broken;
  EXPECT_EQ(names(list_pmus(m, &broken)), (std::vector<std::string>{"msr", "software", "uncore_imc_0"}));
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].pmu, "uncore_imc_3");
  EXPECT_EQ(pmu_names(m), (std::vector<std::string>{"msr", "software", "uncore_imc_0", "uncore_imc_3"}));
  EXPECT_EQ(bind_events(m, syntax::parse_event_list("uncore_imc_0/cas_count_read/,msr/tsc/,tsc")).size(), 3u);
  std::string imc3 = devices() + "/uncore_imc_3/cpumask: '0-x' is not a CPU list";
  for (const char* spec : {"uncore_imc_3/cas_count_read/", "cas_count_read"}) {
    try {
      bind_events(m, syntax::parse_event_list(spec));
      ADD_FAILURE() << spec;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(imc3), std::string::npos) << e.what();
    }
  }
}

TEST_F(SysfsPmuTest, HostileFilesAreErrorsNotHangs) {
  test::add_spr_imc(b, "uncore_imc_0", "24");
  auto pmu_dir = dir_of("uncore_imc_0");
  std::filesystem::remove(pmu_dir / "type");
  ASSERT_EQ(::mkfifo((pmu_dir / "type").c_str(), 0644), 0);
  EXPECT_NE(error_of(machine(), "uncore_imc_0").find("type: is a FIFO, not a regular file"), std::string::npos);
  std::filesystem::remove(pmu_dir / "type");
  std::filesystem::create_symlink("/dev/zero", pmu_dir / "type");
  EXPECT_NE(error_of(machine(), "uncore_imc_0").find("a link leads out of the machine root"), std::string::npos);
  std::filesystem::remove(pmu_dir / "type");
  b.write_text("/sys/bus/event_source/devices/uncore_imc_0/type", std::string(5000, '1'));
  EXPECT_NE(error_of(machine(), "uncore_imc_0").find("type: longer than 4096 bytes"), std::string::npos);
}

TEST_F(SysfsPmuTest, EmptyOrMissingTreeHasNoPmus) {
  EXPECT_TRUE(list_pmus(machine()).empty());
  EXPECT_TRUE(find_pmus(machine(), "uncore_imc").empty());
}

TEST_F(SysfsPmuTest, OnlineCpus) {
  b.write_text("/sys/devices/system/cpu/online", "0-3,8\n");
  EXPECT_EQ(online_cpus(machine()), (std::vector<int>{0, 1, 2, 3, 8}));
  test::TempDir empty;
  Machine none(MachineOptions{empty.path()});
  EXPECT_THROW(online_cpus(none), Error);
}

TEST(NaturalOrder, DigitRunsCompareAsNumbers) {
  EXPECT_TRUE(natural_less("uncore_imc_2", "uncore_imc_10"));
  EXPECT_FALSE(natural_less("uncore_imc_10", "uncore_imc_2"));
  EXPECT_TRUE(natural_less("uncore_cha_9", "uncore_imc_0"));
  EXPECT_TRUE(natural_less("msr", "msr_1"));
  EXPECT_FALSE(natural_less("a1", "a1"));
  EXPECT_TRUE(natural_less("a01", "a2"));
}

TEST(LiveSysfs, MsrPmuMatchesThisMachine) {
  Machine live = Machine::live();
  auto msr = read_pmu(live, "msr");
  if (!msr) GTEST_SKIP() << "this machine has no msr PMU";
  EXPECT_EQ(syntax::format_text(msr->desc.formats.at("event")), "config:0-63");
  ASSERT_TRUE(msr->desc.aliases.count("tsc"));
  EXPECT_EQ(encode_on(*msr, "msr/tsc/").config, 0u);
  EXPECT_FALSE(list_pmus(live).empty());
}
