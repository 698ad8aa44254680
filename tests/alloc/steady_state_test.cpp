// Nothing allocated per interval in steady state: this program replaces the global operator new
// with one that counts, and checks that after the first interval neither a direct session's
// sample() (its flat MMIO pass and its guarded MSR and config-space reads) nor pmu-raw's interval
// output (table, CSV and JSON; merged and per box; with a metric) allocates.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "pmu-raw/report.h"
#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/session.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/machines.h"
#include "support/test_support.h"

// The replacements pair malloc with free themselves; GCC, seeing both inlined, takes every
// delete of a new'd pointer for a mismatch.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<std::size_t> g_allocations{0};
}

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  return operator new(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return operator new(n, t);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

using namespace pmukit;

namespace {

// How many allocations `f` makes.
template <class F>
std::size_t allocations_of(F&& f) {
  const std::size_t before = g_allocations.load();
  f();
  return g_allocations.load() - before;
}

syntax::EncodedEvent ev(std::uint64_t config) {
  syntax::EncodedEvent e;
  e.config = config;
  return e;
}

TEST(SteadyState, TheAllocatorCounts) {
  // The checks below would pass vacuously if the replacement were not the one in use. (A
  // new-expression may be elided; a string of a length known only at run time may not.)
  volatile std::size_t n = 100;
  EXPECT_GE(allocations_of([&] { EXPECT_EQ(std::string(n, 'x').size(), 100u); }), 1u);
}

TEST(SteadyState, DirectSampleAllocatesNothingAfterTheFirst) {
  test::TempDir dir;
  snapshot::build_from_spec(test::spr_every_access_type(nlohmann::json::array()), dir.path() / "m");
  Machine machine(MachineOptions{dir.path() / "m"});
  auto found = discovery::discover(machine);
  sim::Simulator sim(machine, found.inventory, sim::Rates::defaults());
  auto unit = [&](const std::string& name) {
    for (const auto& u : found.inventory.units)
      if (u.name == name) return &u;
    throw std::runtime_error(name + ": not in the machine");
  };
  pmu::SessionOptions o;
  o.settle = &sim;
  // MMIO (the flat pass), MSR and PCI config space (the guarded path).
  pmu::DirectSession s(machine,
                       {{unit("uncore_imc_2"), {ev(0xcf05), ev(0xf005)}},
                        {unit("uncore_cha_1"), {ev(0x01)}},
                        {unit("uncore_m2m"), {ev(0x02)}}},
                       platform::Database::builtin(), o);
  s.start();
  sim.step(1'000'000);
  s.sample();
  std::uint64_t last = 0;
  for (int i = 0; i < 5; ++i) {
    sim.step(10'000'000);
    EXPECT_EQ(allocations_of([&] { last = s.sample()[0][0].delta; }), 0u) << "interval " << i;
  }
  EXPECT_GT(last, 0u);  // the counts moved: the pass did read
  s.restore();
}

struct ReportCase {
  tools::Format format;
  tools::Aggregation aggregation;
  const char* name;
};

class SteadyStateReport : public ::testing::TestWithParam<ReportCase> {};

TEST_P(SteadyStateReport, IntervalOutputAllocatesNothingAfterTheFirst) {
  const ReportCase& c = GetParam();
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  tools::ReportOptions o;
  o.format = c.format;
  o.aggregation = c.aggregation;
  o.interval = true;
  o.out = out;
  tools::Reporter reporter(o);
  // Two events on two boxes of two sockets, one with a scale and one multiplexed, and a metric:
  // names long enough that any std::string made of them would be on the heap.
  std::vector<tools::Row> rows;
  const char* pmus[] = {"uncore_imc_free_running_0", "uncore_imc_free_running_1"};
  for (int box = 0; box < 2; ++box)
    for (std::size_t e = 0; e < 2; ++e) {
      tools::Row r;
      r.spec = e;
      r.event = e ? std::string_view("uncore_imc/cas_count_write_long_name/")
                  : std::string_view("uncore_imc_free_running/data_read_long_name/");
      r.pmu = pmus[box];
      r.socket = box;
      r.count = r.raw = 123456789012ull + 1000 * e;
      r.scale = e ? 1.0 : 6.103515625e-05;
      r.unit = e ? "" : "MiB";
      r.enabled_ns = 10'000'000;
      r.running_ns = e ? 5'000'000 : 10'000'000;
      r.backend = "direct";
      rows.push_back(r);
    }
  std::vector<tools::MetricRow> metrics(1);
  metrics[0].name = "memory_bandwidth_read_long_metric_name (uncore_imc)";
  metrics[0].unit = "MB/s";
  metrics[0].value = 12345.678;
  if (c.aggregation == tools::Aggregation::PerBox) metrics[0].group = "uncore_imc_free_running_0";
  reporter.interval(0.010000000, rows, metrics);
  for (int i = 2; i < 6; ++i) {
    for (auto& r : rows) r.count += 7;
    EXPECT_EQ(allocations_of([&] { reporter.interval(0.01 * i, rows, metrics); }), 0u) << "interval " << i;
  }
  EXPECT_GT(std::ftell(out), 0L);
  std::fclose(out);
}

INSTANTIATE_TEST_SUITE_P(Formats, SteadyStateReport,
                         ::testing::Values(ReportCase{tools::Format::Table, tools::Aggregation::Merged, "TableMerged"},
                                           ReportCase{tools::Format::Table, tools::Aggregation::PerBox, "TablePerBox"},
                                           ReportCase{tools::Format::Csv, tools::Aggregation::Merged, "CsvMerged"},
                                           ReportCase{tools::Format::Csv, tools::Aggregation::PerBox, "CsvPerBox"},
                                           ReportCase{tools::Format::Json, tools::Aggregation::Merged, "JsonMerged"},
                                           ReportCase{tools::Format::Json, tools::Aggregation::PerBox, "JsonPerBox"},
                                           ReportCase{tools::Format::Csv, tools::Aggregation::PerSocket,
                                                      "CsvPerSocket"}),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
