// pmu-raw's lines in perf stat's three shapes, written from each row's planned text: merged, per
// socket and per box; a whole count, a scaled one run a quarter of the window (multiplexed), one
// never on a counter ("<not counted>"), one whose counter overflowed unseen, and a machine-wide
// row (duration_time) that belongs to no socket. The expected lines are perf stat's formats
// (stat-display.c: -I's table, -x's CSV, -j's JSON) with the sums worked out by hand:
// 1,234,567 + 7,654,321 = 8,888,888; (1e6 + 3e6) x 6.103515625e-05 MiB = 244.140625 MiB, run
// 0.25 s + 0.25 s of 2 s = 25%.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "pmu-raw/report.h"

namespace pmukit::tools {
namespace {

Row row(std::size_t spec, const char* event, const char* pmu, int socket, std::uint64_t count, double scale,
        const char* unit, std::uint64_t running_ns, bool lost = false) {
  Row r;
  r.spec = spec;
  r.event = event;
  r.pmu = pmu;
  r.socket = socket;
  r.count = r.raw = count;
  r.scale = scale;
  r.unit = unit;
  r.enabled_ns = socket < 0 ? 0 : 1'000'000'000;
  r.running_ns = running_ns;
  r.lost = lost;
  r.backend = "direct";
  return r;
}

// As a backend returns them: grouped by unit, each unit's events in -e order.
std::vector<Row> two_boxes() {
  constexpr double kMiB = 6.103515625e-05;  // 64 bytes per CAS in MiB (the kernel's uncore_imc alias)
  return {row(0, "uncore_imc/event=0x01/", "uncore_imc_0", 0, 1234567, 1.0, "", 1'000'000'000),
          row(1, "uncore_imc/cas_count_read/", "uncore_imc_0", 0, 1000000, kMiB, "MiB", 250'000'000),
          row(2, "uncore_imc/event=0x03/", "uncore_imc_0", 0, 0, 1.0, "", 0),
          row(0, "uncore_imc/event=0x01/", "uncore_imc_1", 1, 7654321, 1.0, "", 1'000'000'000, true),
          row(1, "uncore_imc/cas_count_read/", "uncore_imc_1", 1, 3000000, kMiB, "MiB", 250'000'000),
          row(2, "uncore_imc/event=0x03/", "uncore_imc_1", 1, 0, 1.0, "", 0),
          row(3, "duration_time", "", -1, 1'000'000'000, 1.0, "ns", 0)};
}

// What the reporter wrote for `intervals` (one rows vector each, at 1.000123456 s, 2 s, ...).
std::string report(Aggregation aggregation, Format format, const std::vector<std::vector<Row>>& intervals) {
  std::FILE* f = std::tmpfile();
  ReportOptions o;
  o.aggregation = aggregation;
  o.format = format;
  o.separator = ";";
  o.interval = true;
  o.out = f;
  Reporter reporter(o);
  double t = 1.000123456;
  for (const auto& rows : intervals) reporter.interval(t, rows, {}), t = static_cast<double>(static_cast<int>(t) + 1);
  std::string text(static_cast<std::size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  return text;
}

struct Case {
  Aggregation aggregation;
  Format format;
  const char* expected;
};

class ReportLines : public ::testing::TestWithParam<Case> {};

TEST_P(ReportLines, EachShapeAsPerfStatWritesIt) {
  EXPECT_EQ(report(GetParam().aggregation, GetParam().format, {two_boxes()}), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ReportLines,
    ::testing::Values(
        Case{Aggregation::Merged, Format::Table,
             R"(#           time               counts unit  events
     1.000123456            8,888,888       uncore_imc/event=0x01/  <overflow: count unreliable>
     1.000123456               244.14 MiB   uncore_imc/cas_count_read/  (25.00%)
     1.000123456        <not counted>       uncore_imc/event=0x03/
     1.000123456        1,000,000,000 ns    duration_time
)"},
        Case{Aggregation::PerSocket, Format::Table,
             R"(#           time sock               counts unit  events
     1.000123456 S0              1,234,567       uncore_imc/event=0x01/
     1.000123456 S1              7,654,321       uncore_imc/event=0x01/  <overflow: count unreliable>
     1.000123456 S0                  61.04 MiB   uncore_imc/cas_count_read/  (25.00%)
     1.000123456 S1                 183.11 MiB   uncore_imc/cas_count_read/  (25.00%)
     1.000123456 S0          <not counted>       uncore_imc/event=0x03/
     1.000123456 S1          <not counted>       uncore_imc/event=0x03/
     1.000123456             1,000,000,000 ns    duration_time
)"},
        // perf stat --per-socket's aggregate-number after the socket: one unit a socket here.
        Case{Aggregation::PerSocket, Format::Csv,
             R"(1.000123456;S0;1;1234567;;uncore_imc/event=0x01/;1000000000;100.00;;
1.000123456;S1;1;7654321;;uncore_imc/event=0x01/;1000000000;100.00;;
1.000123456;S0;1;61.04;MiB;uncore_imc/cas_count_read/;250000000;25.00;;
1.000123456;S1;1;183.11;MiB;uncore_imc/cas_count_read/;250000000;25.00;;
1.000123456;S0;1;<not counted>;;uncore_imc/event=0x03/;0;0.00;;
1.000123456;S1;1;<not counted>;;uncore_imc/event=0x03/;0;0.00;;
1.000123456;1000000000;ns;duration_time;0;100.00;;
)"},
        Case{Aggregation::PerBox, Format::Csv,
             R"(1.000123456;uncore_imc_0;1234567;;uncore_imc_0/event=0x01/;1000000000;100.00;;
1.000123456;uncore_imc_1;7654321;;uncore_imc_1/event=0x01/;1000000000;100.00;;
1.000123456;uncore_imc_0;61.04;MiB;uncore_imc_0/cas_count_read/;250000000;25.00;;
1.000123456;uncore_imc_1;183.11;MiB;uncore_imc_1/cas_count_read/;250000000;25.00;;
1.000123456;uncore_imc_0;<not counted>;;uncore_imc_0/event=0x03/;0;0.00;;
1.000123456;uncore_imc_1;<not counted>;;uncore_imc_1/event=0x03/;0;0.00;;
1.000123456;1000000000;ns;duration_time;0;100.00;;
)"},
        Case{
            Aggregation::Merged, Format::Json,
            R"({"interval":1.000123456,"counter-value":"8888888.000000","unit":"","event":"uncore_imc/event=0x01/","event-runtime":2000000000,"pcnt-running":100.0,"backend":"direct","lost":true}
{"interval":1.000123456,"counter-value":"244.140625","unit":"MiB","event":"uncore_imc/cas_count_read/","event-runtime":500000000,"pcnt-running":25.0,"backend":"direct"}
{"interval":1.000123456,"counter-value":"<not counted>","unit":"","event":"uncore_imc/event=0x03/","event-runtime":0,"pcnt-running":0.0,"backend":"direct"}
{"interval":1.000123456,"counter-value":"1000000000.000000","unit":"ns","event":"duration_time","event-runtime":0,"pcnt-running":100.0,"backend":"direct"}
)"},
        Case{
            Aggregation::PerBox, Format::Json,
            R"({"interval":1.000123456,"pmu":"uncore_imc_0","counter-value":"1234567.000000","unit":"","event":"uncore_imc_0/event=0x01/","event-runtime":1000000000,"pcnt-running":100.0,"backend":"direct"}
{"interval":1.000123456,"pmu":"uncore_imc_1","counter-value":"7654321.000000","unit":"","event":"uncore_imc_1/event=0x01/","event-runtime":1000000000,"pcnt-running":100.0,"backend":"direct","lost":true}
{"interval":1.000123456,"pmu":"uncore_imc_0","counter-value":"61.035156","unit":"MiB","event":"uncore_imc_0/cas_count_read/","event-runtime":250000000,"pcnt-running":25.0,"backend":"direct"}
{"interval":1.000123456,"pmu":"uncore_imc_1","counter-value":"183.105469","unit":"MiB","event":"uncore_imc_1/cas_count_read/","event-runtime":250000000,"pcnt-running":25.0,"backend":"direct"}
{"interval":1.000123456,"pmu":"uncore_imc_0","counter-value":"<not counted>","unit":"","event":"uncore_imc_0/event=0x03/","event-runtime":0,"pcnt-running":0.0,"backend":"direct"}
{"interval":1.000123456,"pmu":"uncore_imc_1","counter-value":"<not counted>","unit":"","event":"uncore_imc_1/event=0x03/","event-runtime":0,"pcnt-running":0.0,"backend":"direct"}
{"interval":1.000123456,"pmu":"","counter-value":"1000000000.000000","unit":"ns","event":"duration_time","event-runtime":0,"pcnt-running":100.0,"backend":"direct"}
)"}));

// The second interval reuses the planned text; when the rows change (an event's unit gone), the
// lines are planned again rather than printed from the old plan.
TEST(ReportLines, ThePlanFollowsTheRows) {
  std::vector<Row> fewer = two_boxes();
  fewer.erase(fewer.begin() + 3, fewer.begin() + 6);  // uncore_imc_1 no longer read
  const std::string text = report(Aggregation::PerBox, Format::Csv, {two_boxes(), two_boxes(), fewer});
  const std::string third = text.substr(text.find("3.000000000"));
  EXPECT_EQ(third, "3.000000000;uncore_imc_0;1234567;;uncore_imc_0/event=0x01/;1000000000;100.00;;\n"
                   "3.000000000;uncore_imc_0;61.04;MiB;uncore_imc_0/cas_count_read/;250000000;25.00;;\n"
                   "3.000000000;uncore_imc_0;<not counted>;;uncore_imc_0/event=0x03/;0;0.00;;\n"
                   "3.000000000;1000000000;ns;duration_time;0;100.00;;\n");
  // The second interval's lines are the first's, at its own time.
  std::string first = text.substr(0, text.find("2.000000000"));
  for (std::size_t at; (at = first.find("1.000123456")) != std::string::npos;) first.replace(at, 11, "2.000000000");
  EXPECT_EQ(text.substr(text.find("2.000000000"), first.size()), first);
}

// Every digit count, at its first and last value, as std::to_chars writes it.
TEST(ReportLines, DecimalDigitsAtEveryLength) {
  std::vector<std::uint64_t> values = {0, UINT64_MAX};
  for (std::uint64_t p = 10; p != 10'000'000'000'000'000'000ull; p *= 10)
    values.insert(values.end(), {p - 1, p, p + 1});
  values.insert(values.end(), {10'000'000'000'000'000'000ull - 1, 10'000'000'000'000'000'000ull, 1234567, 98765432109});
  for (std::uint64_t v : values) {
    char ours[LineWriter::kDigits], theirs[LineWriter::kDigits];
    const std::string_view got(ours, static_cast<std::size_t>(put_decimal(ours, v) - ours));
    const std::string_view want(theirs, static_cast<std::size_t>(std::to_chars(theirs, theirs + 20, v).ptr - theirs));
    EXPECT_EQ(got, want) << v;
  }
}

// Whole counts at the edges of the usual line: the largest count (grouped wider than the table's 20
// columns), JSON's last exact double and the first past it (written by fmt as a double), and rows
// whose lines end differently (another backend's name) in one interval.
TEST(ReportLines, UsualLinesAtTheirEdges) {
  std::vector<Row> rows = {row(0, "e", "uncore_imc_0", 0, UINT64_MAX, 1.0, "", 1'000'000'000),
                           row(0, "e", "uncore_imc_1", 0, (1ull << 53) - 1, 1.0, "", 1'000'000'000),
                           row(0, "e", "uncore_imc_2", 0, 1ull << 53, 1.0, "", 1'000'000'000)};
  rows[2].backend = "perf";
  EXPECT_EQ(report(Aggregation::PerBox, Format::Table, {rows}), "#           time               counts unit  events\n"
                                                                "     1.000123456 18,446,744,073,709,551,615       e\n"
                                                                "     1.000123456 9,007,199,254,740,991       e\n"
                                                                "     1.000123456 9,007,199,254,740,992       e\n");
  EXPECT_EQ(
      report(Aggregation::PerBox, Format::Json, {rows}),
      R"({"interval":1.000123456,"pmu":"uncore_imc_0","counter-value":"18446744073709551616.000000","unit":"","event":"e","event-runtime":1000000000,"pcnt-running":100.0,"backend":"direct"}
{"interval":1.000123456,"pmu":"uncore_imc_1","counter-value":"9007199254740991.000000","unit":"","event":"e","event-runtime":1000000000,"pcnt-running":100.0,"backend":"direct"}
{"interval":1.000123456,"pmu":"uncore_imc_2","counter-value":"9007199254740992.000000","unit":"","event":"e","event-runtime":1000000000,"pcnt-running":100.0,"backend":"perf"}
)");
  EXPECT_EQ(report(Aggregation::PerBox, Format::Csv, {rows}),
            "1.000123456;uncore_imc_0;18446744073709551615;;e;1000000000;100.00;;\n"
            "1.000123456;uncore_imc_1;9007199254740991;;e;1000000000;100.00;;\n"
            "1.000123456;uncore_imc_2;9007199254740992;;e;1000000000;100.00;;\n");
}

}  // namespace
}  // namespace pmukit::tools
