// pmu-raw -- output in perf stat's shapes: a human table, CSV (-x SEP) and JSON lines (-j), per
// event (merged over every unit it counts on, as perf merges uncore PMUs), per socket or per box.
#pragma once

#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/backend.h"
#include "common/metric_runner.h"
#include "report_text.h"

namespace pmukit::tools {

// PerDevice and PerStack (-M IIO metrics per PCIe device or IIO stack) show events merged and each
// metric instance on a line of its own.
enum class Aggregation { Merged, PerSocket, PerBox, PerDevice, PerStack };
enum class Format { Table, Csv, Json };

struct ReportOptions {
  Aggregation aggregation = Aggregation::Merged;
  Format format = Format::Table;
  std::string separator = ",";
  bool interval = false;
  std::FILE* out = stdout;
};

class Reporter {
 public:
  explicit Reporter(ReportOptions options) : o_(std::move(options)) {}
  // Interval mode: one block per interval, `t_s` seconds since start.
  void interval(double t_s, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics);
  // The final summary (also after interval mode, as perf prints nothing more than the intervals
  // there: only used without -I).
  void totals(const std::vector<Row>& rows, const std::vector<MetricRow>& metrics, const std::string& target,
              const std::vector<std::string>& notes, double elapsed_s);
  std::string group_of(const Row& r) const;
  void group_to(Text& out, const Row& r) const;

 private:
  // What a row is summed under: (socket, "") per socket, (-1, pmu) per box, (-1, "") merged.
  using GroupKey = std::pair<int, std::string_view>;
  GroupKey group_key(const Row& r) const;
  bool breakdown() const { return o_.aggregation == Aggregation::PerDevice || o_.aggregation == Aggregation::PerStack; }
  void print_rows(std::string_view time, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics);
  // One aggregated row; group_ and event_ hold its group and event text.
  void print_table_row(std::string_view time, const Row& r);
  void print_csv_row(std::string_view time, const Row& r);
  void print_json_row(std::string_view time, const Row& r);
  void print_metric(std::string_view time, const MetricRow& m);
  void print_breakdown_metric(const std::string& time, const MetricRow& m);
  // Rows summed per (event, group) in -e order (valid until the next call).
  const std::vector<Row>& aggregate(const std::vector<Row>& rows);
  bool plan_matches(const std::vector<Row>& rows) const;
  void plan(const std::vector<Row>& rows);
  fmt::appender out() { return fmt::appender(buf_); }

  ReportOptions o_;
  bool header_done_ = false;
  // One interval's (or the totals') text, written with one fwrite and kept for the next.
  Text buf_;
  std::vector<std::string> plan_group_, plan_event_;            // per merged row, made by plan()
  std::vector<std::string> plan_group_json_, plan_event_json_;  // the same as JSON strings (-j)
  std::string_view group_, event_;                              // the row being printed: its group and event
  std::string_view group_json_, event_json_;
  Text value_;     // its value, reused
  Text interval_;  // JSON: the interval's time as a number, once per interval
  // aggregate()'s plan: each row's key, and the merged row it is summed into.
  std::vector<std::pair<std::size_t, GroupKey>> plan_keys_;
  std::vector<std::size_t> plan_slot_;
  std::size_t plan_outputs_ = 0;
  std::vector<bool> plan_seen_;
  std::vector<Row> merged_;
};

// 1234567 -> "1,234,567"
std::string thousands(std::uint64_t v);
void thousands_to(Text& out, std::uint64_t v);

}  // namespace pmukit::tools
