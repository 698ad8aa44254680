// counting/series.h: a run's reads as exported series -- totals since the start that never go
// down, bytes where the event counts data, units summed per box or per socket, and two configured
// events on one series refused. Rows are fed as a ReadLoop gives them, on a Run of a bundled machine.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmukit/counting/series.h"
#include "pmukit/util/error.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"

using namespace pmukit;
using counting::Granularity;
using counting::Row;

namespace {

Row imc_row(std::string_view pmu, int socket, std::uint64_t count) {
  Row r;
  r.spec = 0;
  r.event = "uncore_imc/cas_count_read/";
  r.pmu = pmu;
  r.socket = socket;
  r.count = r.raw = count;  // the whole window on the counter: no multiplexing
  r.enabled_ns = r.running_ns = 1'000'000'000;
  r.scale = 6.103515625e-5;  // 64 bytes in MiB, the event's .scale
  r.unit = "MiB";
  r.backend = "direct";
  return r;
}

class Series : public ::testing::Test {
 protected:
  test::BundledRig rig{"spr-2s"};
  test::SimProcess sim{rig.root};
};

TEST_F(Series, TotalsSinceStartInBytesPerBox) {
  counting::Request request;
  request.events = {"uncore_imc/cas_count_read/"};
  counting::Run run(*rig.machine, request);
  counting::SeriesOptions options;
  options.events = {{"uncore_imc/cas_count_read/", "", std::nullopt, "", std::nullopt}};
  counting::SeriesCollector c(options, run);
  ASSERT_EQ(c.labels().size(), 1u);
  EXPECT_EQ(c.labels()[0].event, "cas_count_read");
  EXPECT_EQ(c.labels()[0].pmu, "uncore_imc");
  auto s0 = c.add_read(0, {imc_row("uncore_imc_0", 0, 10), imc_row("uncore_imc_1", 0, 1)});
  auto s1 = c.add_read(1'000'000'000, {imc_row("uncore_imc_0", 0, 5), imc_row("uncore_imc_1", 0, 0)});
  EXPECT_EQ(s1.reads, 2u);
  EXPECT_EQ(s1.counted_ns, 1'000'000'000u);
  ASSERT_EQ(s1.counters.size(), 2u);
  EXPECT_TRUE(s1.counters[0].bytes);
  EXPECT_EQ(s1.counters[0].pmu, "uncore_imc_0");
  EXPECT_EQ(s0.counters[0].total, 640.0);  // 10 counts of 64 bytes
  EXPECT_EQ(s1.counters[0].total, 960.0);
  EXPECT_EQ(s1.counters[1].total, 64.0);
  ASSERT_EQ(s1.backends.size(), 2u);
  EXPECT_EQ(s1.backends[0].backend, "direct");
}

TEST_F(Series, PerSocketSumsTheUnitsUnderTheWrittenPmu) {
  counting::Request request;
  request.events = {"uncore_imc/cas_count_read/"};
  counting::Run run(*rig.machine, request);
  counting::SeriesOptions options;
  options.granularity = Granularity::PerSocket;
  options.events = {{"uncore_imc/cas_count_read/", "reads", 32.0, "", std::nullopt}};
  counting::SeriesCollector c(options, run);
  auto s = c.add_read(0, {imc_row("uncore_imc_0", 0, 1), imc_row("uncore_imc_1", 0, 2), imc_row("uncore_imc_8", 1, 4)});
  ASSERT_EQ(s.counters.size(), 2u);
  EXPECT_EQ(s.counters[0].event, "reads");
  EXPECT_EQ(s.counters[0].pmu, "uncore_imc");
  EXPECT_EQ(s.counters[0].socket, 0);
  EXPECT_EQ(s.counters[0].total, 96.0);  // bytes_per_count, not the event's own unit
  EXPECT_EQ(s.counters[1].total, 128.0);
}

TEST_F(Series, TwoEventsOnOneSeriesAreRefused) {
  counting::Request request;
  request.events = {"uncore_imc/cas_count_read/", "uncore_imc/cas_count_read/"};
  counting::Run run(*rig.machine, request);
  counting::SeriesOptions options;
  options.events = {{request.events[0], "", {}, "", {}}, {request.events[1], "", {}, "", {}}};
  counting::SeriesCollector c(options, run);
  Row second = imc_row("uncore_imc_0", 0, 1);
  second.spec = 1;
  EXPECT_THROW(c.add_read(0, {imc_row("uncore_imc_0", 0, 1), second}), Error);
}

}  // namespace
