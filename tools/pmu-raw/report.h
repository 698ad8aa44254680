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

// Room for a count's digits with separators: 20 digits, 6 commas, ".NN" and the terminator.
struct DigitText {
  char text[32];
  const char* set(std::uint64_t whole, int cents);  // cents < 0: none
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

 private:
  // What a row is summed under: (socket, "") per socket, (-1, pmu) per box, (-1, "") merged.
  using GroupKey = std::pair<int, std::string_view>;
  GroupKey group_key(const Row& r) const;
  bool breakdown() const { return o_.aggregation == Aggregation::PerDevice || o_.aggregation == Aggregation::PerStack; }
  // What a merged row shows besides its counts, the same every interval: planned with the rows.
  struct RowText {
    std::string group;                   // "S0", a PMU name, or "" merged
    std::string event;                   // the event as the line names it
    std::string json_group, json_event;  // both as JSON strings, quoted and escaped
  };
  static RowText row_text(std::string group, std::string event);
  void print_rows(std::string_view time, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics);
  void print_table_row(std::string_view time, const Row& r, const RowText& text);
  void print_csv_row(std::string_view time, const Row& r, const RowText& text);
  void print_json_row(const Row& r, const RowText& text);
  void print_metric(std::string_view time, const MetricRow& m);
  void print_breakdown_metric(std::string_view time, const MetricRow& m);
  // Rows summed per (event, group) in -e order (valid until the next call).
  const std::vector<Row>& aggregate(const std::vector<Row>& rows);
  bool plan_matches(const std::vector<Row>& rows) const;
  void plan(const std::vector<Row>& rows);
  auto out() { return std::back_inserter(buf_); }

  ReportOptions o_;
  bool header_done_ = false;
  // One interval's (or the totals') text, written with one fwrite and kept for the next.
  fmt::memory_buffer buf_;
  // aggregate()'s plan: each row's key, and the merged row it is summed into.
  std::vector<std::pair<std::size_t, GroupKey>> plan_keys_;
  std::vector<std::size_t> plan_slot_;
  std::size_t plan_outputs_ = 0;
  std::vector<bool> plan_seen_;
  std::vector<Row> merged_;
  std::vector<RowText> plan_text_;  // per merged row
  fmt::memory_buffer json_time_;    // the time as a JSON number (-j), made once per interval
  char time_[48] = {};              // this interval's time column, NUL-terminated (JSON reads it back)
};

}  // namespace pmukit::tools
