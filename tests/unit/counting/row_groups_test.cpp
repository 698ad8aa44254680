// counting::RowGroups: a report's rows summed per event over every unit, per socket or per unit,
// as perf stat aggregates them (the scaled counts, raw counts, enabled and running times summed).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pmukit/counting/row_groups.h"

using namespace pmukit;
using counting::Grouping;
using counting::Row;

namespace {

Row row(std::size_t spec, std::string_view pmu, int socket, std::uint64_t count) {
  Row r;
  r.spec = spec;
  r.event = spec == 0 ? "uncore_imc/cas_count_read/" : "duration_time";
  r.pmu = pmu;
  r.socket = socket;
  r.count = count;
  r.raw = count / 2;
  r.enabled_ns = 100;
  r.running_ns = 50;
  return r;
}

// Two sockets of two IMC units each, then duration_time, which belongs to no socket; in the order
// a backend gives them (by unit), not by event.
std::vector<Row> rows() {
  return {row(0, "uncore_imc_0", 0, 10), row(0, "uncore_imc_1", 0, 20), row(0, "uncore_imc_2", 1, 30),
          row(0, "uncore_imc_3", 1, 40), row(1, "duration_time", -1, 1000)};
}

std::vector<std::uint64_t> counts(const std::vector<const Row*>& lines) {
  std::vector<std::uint64_t> out;
  for (const auto* l : lines) out.push_back(l->count);
  return out;
}

TEST(RowGroups, MergedSumsAnEventOverEveryUnitAsPerfStatDoes) {
  counting::RowGroups g(Grouping::Merged);
  const auto input = rows();
  const auto& lines = g.aggregate(input);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(counts(lines), (std::vector<std::uint64_t>{100, 1000}));
  EXPECT_EQ(lines[0]->raw, 50u);
  EXPECT_EQ(lines[0]->enabled_ns, 400u);
  EXPECT_EQ(lines[0]->running_ns, 200u);
  EXPECT_EQ(lines[0]->pmu, "uncore_imc_0");  // the first row's names
  EXPECT_EQ(lines[1], &input[4]);            // alone in its line: the row itself
  EXPECT_EQ(g.first_row(0), 0u);
  EXPECT_EQ(g.first_row(1), 4u);
}

TEST(RowGroups, PerSocketSumsTheUnitsOfEachSocket) {
  counting::RowGroups g(Grouping::PerSocket);
  auto input = rows();
  input[3].lost = true;
  const auto& lines = g.aggregate(input);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(counts(lines), (std::vector<std::uint64_t>{30, 70, 1000}));
  EXPECT_EQ(g.placement(*lines[0]).socket, 0);
  EXPECT_EQ(g.placement(*lines[1]).socket, 1);
  EXPECT_FALSE(lines[0]->lost);
  EXPECT_TRUE(lines[1]->lost);                   // a lost overflow in any unit marks the sum
  EXPECT_EQ(g.placement(*lines[2]).socket, -1);  // duration_time: no socket
}

// perf stat's "aggregate-number": how many counters each line sums, a unit a row, or the CPUs a
// perf row already sums.
TEST(RowGroups, CountsTheCountersEachLineSums) {
  auto input = rows();
  input.push_back(row(0, "uncore_imc_4", 1, 50));
  counting::RowGroups box(Grouping::PerBox);
  box.aggregate(input);
  for (std::size_t i = 0; i < box.lines(); ++i) EXPECT_EQ(box.members(i), 1u);
  counting::RowGroups g(Grouping::PerSocket);
  input[0].units = 4;  // a perf row, its event opened on 4 CPUs
  g.aggregate(input);
  ASSERT_EQ(g.lines(), 3u);
  EXPECT_EQ(g.members(0), 5u);
  EXPECT_EQ(g.members(1), 3u);
  EXPECT_EQ(g.members(2), 1u);
}

TEST(RowGroups, PerBoxKeepsEveryUnitInNameOrder) {
  counting::RowGroups g(Grouping::PerBox);
  std::vector<Row> input{row(0, "uncore_imc_1", 0, 20), row(0, "uncore_imc_0", 0, 10)};
  const auto& lines = g.aggregate(input);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], &input[1]);
  EXPECT_EQ(lines[1], &input[0]);
  EXPECT_EQ(g.placement(input[0]).pmu, "uncore_imc_1");
}

TEST(RowGroups, PlansOnceWhileTheRowsStayTheSame) {
  counting::RowGroups g(Grouping::PerSocket);
  auto input = rows();
  g.aggregate(input);
  EXPECT_TRUE(g.replanned());
  input[0].count = 11;  // a new interval: the same rows, new counts
  const auto& lines = g.aggregate(input);
  EXPECT_FALSE(g.replanned());
  EXPECT_EQ(lines[0]->count, 31u);
  input.pop_back();  // a row less: planned anew
  EXPECT_EQ(g.aggregate(input).size(), 2u);
  EXPECT_TRUE(g.replanned());
}

// A caller that knows the rows are the last call's (a rereading backend) has them shown without
// the plan being checked; rows that are not, by their number, are still planned anew.
TEST(RowGroups, RowsAsBeforeKeepThePlan) {
  counting::RowGroups g(Grouping::PerSocket);
  auto input = rows();
  g.aggregate(input, true);  // nothing planned yet: planned now, whatever the caller says
  EXPECT_TRUE(g.replanned());
  input[0].count = 11;
  const auto& lines = g.aggregate(input, true);
  EXPECT_FALSE(g.replanned());
  EXPECT_EQ(lines[0]->count, 31u);
  input.pop_back();
  EXPECT_EQ(g.aggregate(input, true).size(), 2u);
  EXPECT_TRUE(g.replanned());
}

// --per-box shows each row itself: the same rows again in the same storage keep the last call's
// pointers; the same rows in other storage (a copy, as a caller's vector that grew) are shown there.
TEST(RowGroups, PerBoxShowsTheRowsWhereTheyAreNow) {
  counting::RowGroups g(Grouping::PerBox);
  std::vector<Row> input{row(0, "uncore_imc_1", 0, 20), row(0, "uncore_imc_0", 0, 10)};
  g.aggregate(input, true);
  input[1].count = 11;  // a new interval in place
  const auto& again = g.aggregate(input, true);
  EXPECT_FALSE(g.replanned());
  EXPECT_EQ(again[0], &input[1]);
  EXPECT_EQ(again[0]->count, 11u);
  const std::vector<Row> copy = input;
  const auto& moved = g.aggregate(copy, true);
  EXPECT_FALSE(g.replanned());
  ASSERT_EQ(moved.size(), 2u);
  EXPECT_EQ(moved[0], &copy[1]);
  EXPECT_EQ(moved[1], &copy[0]);
  // And back in the first storage, after the copy was shown.
  EXPECT_EQ(g.aggregate(input, true)[1], &input[0]);
}

// Where the units count from, as counting::pmu_places gives it: socket 0's IMC units on die 0 and
// die 1 (NUMA nodes 0 and 2), socket 1's on its die 0 (node 1). One PMU name per box on every
// socket, as Linux's uncore PMUs.
counting::PmuPlaces places() {
  counting::PmuPlaces p;
  p[0]["uncore_imc_0"] = {0, 0, 0, 0};
  p[0]["uncore_imc_1"] = {4, 0, 1, 2};
  p[1]["uncore_imc_0"] = {8, 1, 0, 1};
  p[1]["uncore_imc_1"] = {8, 1, 0, 1};
  return p;
}

std::vector<Row> two_socket_rows() {
  return {row(0, "uncore_imc_0", 0, 10), row(0, "uncore_imc_1", 0, 20), row(0, "uncore_imc_0", 1, 30),
          row(0, "uncore_imc_1", 1, 40), row(0, "uncore_imc_9", 1, 50), row(1, "duration_time", -1, 1000)};
}

TEST(RowGroups, PerDieSumsTheUnitsOfEachDieTheirCpuIsOn) {
  counting::RowGroups g(Grouping::PerDie, places());
  const auto input = two_socket_rows();
  const auto& lines = g.aggregate(input);
  // A unit without a place (uncore_imc_9) and duration_time belong to no die: one machine-wide line.
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(counts(lines), (std::vector<std::uint64_t>{50, 10, 20, 70, 1000}));
  EXPECT_EQ(g.placement(*lines[1]).socket, 0);
  EXPECT_EQ(g.placement(*lines[1]).die, 0);
  EXPECT_EQ(g.placement(*lines[2]).die, 1);
  EXPECT_EQ(g.placement(*lines[3]).socket, 1);
  EXPECT_EQ(g.placement(*lines[3]).die, 0);
}

TEST(RowGroups, PerNodeSumsTheUnitsOfEachNumaNode) {
  counting::RowGroups g(Grouping::PerNode, places());
  const auto input = two_socket_rows();
  const auto& lines = g.aggregate(input);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(counts(lines), (std::vector<std::uint64_t>{50, 10, 70, 20, 1000}));
  EXPECT_EQ(g.placement(*lines[1]).node, 0);
  EXPECT_EQ(g.placement(*lines[2]).node, 1);
  EXPECT_EQ(g.placement(*lines[3]).node, 2);
  EXPECT_EQ(g.placement(*lines[3]).socket, -1);
}

}  // namespace
