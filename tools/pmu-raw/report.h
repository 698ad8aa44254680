// pmu-raw -- output in perf stat's shapes: a human table, CSV (-x SEP) and JSON lines (-j), per
// event (merged over every unit it counts on, as perf merges uncore PMUs), per socket or per box.
#pragma once

#include <cstdio>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pmukit/counting/backend.h"
#include "pmukit/counting/metric_runner.h"
#include "pmukit/counting/row_groups.h"
#include "report_text.h"

namespace pmukit::tools {

using counting::MetricRow;
using counting::Row;

// PerDevice and PerStack (-M IIO metrics per PCIe device or IIO stack) show events merged and each
// metric instance on a line of its own.
// PerCpu (-A, --no-aggr): per CPU counted on, as perf stat -A shows an uncore PMU (a line per CPU
// of its cpumask, that CPU's units summed).
enum class Aggregation { Merged, PerSocket, PerBox, PerDevice, PerStack, PerDie, PerNode, PerCpu };
enum class Format { Table, Csv, Json };

struct ReportOptions {
  Aggregation aggregation = Aggregation::Merged;
  Format format = Format::Table;
  std::string separator = ",";
  bool interval = false;
  bool metric_only = false;  // --metric-only: no event lines
  std::FILE* out = stdout;
  counting::PmuPlaces places;  // PerDie, PerNode: where each PMU instance counts
  // -j: the events counted only for metrics (by spec), and the metrics each is an input of: their
  // records say so ("metric-input"), so that pmu-report charts the metric and not its inputs again.
  std::map<std::size_t, std::vector<std::string>> metric_inputs;
};

class Reporter {
 public:
  explicit Reporter(ReportOptions options) : o_(std::move(options)), groups_(grouping(o_.aggregation), o_.places) {}
  // Interval mode: one block per interval, `t_s` seconds since start.
  // `as_before`: the rows are the last interval's (counting::Sink::rows_as_before).
  void interval(double t_s, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics,
                bool as_before = false);
  // The final summary (also after interval mode, as perf prints nothing more than the intervals
  // there: only used without -I).
  void totals(const std::vector<Row>& rows, const std::vector<MetricRow>& metrics, const std::string& target,
              const std::vector<std::string>& notes, double elapsed_s);
  void group_to(Text& out, const Row& r) const;
  // The rows summed into the report's lines, as this report sums them (for -r's statistics).
  counting::RowGroups row_groups() const { return counting::RowGroups(grouping(o_.aggregation), o_.places); }
  // -r: the totals are means over `runs` runs; the table shows each line's spread (its percentage,
  // per line, as counting::RepeatedRuns gives it) and the elapsed time's standard error.
  void set_repeat(std::size_t runs, std::vector<double> spread_pct, double elapsed_sd_s, double elapsed_pct) {
    runs_ = runs, spread_ = std::move(spread_pct), elapsed_sd_ = elapsed_sd_s, elapsed_pct_ = elapsed_pct;
  }
  // The key of a line's group in JSON, as perf stat -j names it: "socket", "die", "node", "cpu" or "pmu".
  std::string_view group_key() const;

 private:
  // How the rows are summed into lines. Events are summed per socket where metrics are per device
  // or stack: a stack PMU has a unit per socket, and a device is on one of them.
  static counting::Grouping grouping(Aggregation a) {
    return a == Aggregation::Merged    ? counting::Grouping::Merged
           : a == Aggregation::PerBox  ? counting::Grouping::PerBox
           : a == Aggregation::PerDie  ? counting::Grouping::PerDie
           : a == Aggregation::PerNode ? counting::Grouping::PerNode
           : a == Aggregation::PerCpu  ? counting::Grouping::PerCpu
                                       : counting::Grouping::PerSocket;
  }
  bool breakdown() const { return o_.aggregation == Aggregation::PerDevice || o_.aggregation == Aggregation::PerStack; }
  void print_rows(std::string_view time, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics,
                  bool as_before = false);
  // One aggregated row, between its planned text: `head` before the value, `mid` after it (up to
  // the run time; in the table, to the end) and `tail` after the run time and percentage.
  void print_table_row(const Row& r, std::string_view head, std::string_view mid, std::size_t line);
  void print_csv_row(const Row& r, std::string_view head, std::string_view mid, std::string_view tail,
                     std::size_t line_no);
  void print_json_row(const Row& r, std::string_view head, std::string_view mid, std::string_view tail,
                      std::size_t line_no);
  // -r: line `line_no`'s spread in percent (0 where the runs agree or it has none).
  double spread_at(std::size_t line_no) const { return line_no < spread_.size() ? spread_[line_no] : 0.0; }
  // The run time, usually the same window on every row of an interval: its digits made once.
  void runtime(LineWriter& line, std::uint64_t ns) {
    if (ns != runtime_ns_ || runtime_text_.size() == 0) {
      runtime_ns_ = ns;
      runtime_text_.clear();
      put(runtime_text_, ns);
    }
    line << view(runtime_text_);
  }
  // The whole window on the counter (or no window): the percentage is 100.
  static bool full(const Row& r) { return r.running_ns == r.enabled_ns; }
  void print_metric(std::string_view time, const MetricRow& m);
  void print_breakdown_metric(const std::string& time, const MetricRow& m);
  // Each line's fixed text, from the first row summed into it, after groups_ planned anew.
  void plan(const std::vector<Row>& rows);
  void plan_text(std::size_t slot, const Row& r);
  // The usual line: a whole count (scale 1) counted over the whole window, no overflow. It is its
  // planned text around the count and the run time, copied with copy_padded.
  template <Format F>
  static bool usual(const Row& r) {
    return r.scale == 1.0 && !r.lost && full(r) && (F != Format::Json || r.count < (1ull << 53));
  }
  void plan_usual();
  template <Format F>
  [[gnu::always_inline]] inline char* print_usual(char* to, const Row& r, std::size_t slot);
  template <Format F>
  void print_lines(const std::vector<const Row*>& merged);
  // Any other line, through the slow path's pieces.
  void print_other(const Row& r, std::size_t slot);
  fmt::appender out() { return fmt::appender(buf_); }

  ReportOptions o_;
  std::size_t runs_ = 0;        // -r: how many runs the totals are the mean of (0: one, not repeated)
  std::vector<double> spread_;  // and each line's spread, in percent
  double elapsed_sd_ = 0, elapsed_pct_ = 0;
  counting::RowGroups groups_;  // the rows summed into lines
  bool header_done_ = false;
  // One interval's (or the totals') text, written with one fwrite and kept for the next.
  Text buf_;
  // Per merged row, made by plan(): a line's fixed text (full_tail: its tail with a percentage of
  // 100, the whole window counted).
  std::vector<std::string> plan_head_, plan_mid_, plan_tail_, plan_full_tail_;
  Text value_;                    // the row being printed: its value where it is not a whole count, reused
  Text pct_;                      // and its percentage
  Text interval_;                 // JSON: the interval's time as a number, once per interval
  Text lead_;                     // what starts each of the interval's lines: its time (and a separator or key)
  std::uint64_t runtime_ns_ = 0;  // the last run time written, and its digits
  Text runtime_text_;
  // Per merged row, made by plan_usual(): a usual line's text before its count, after it (up to the
  // run time) and after the run time, as offsets into usual_text_ (padded by kSlack bytes).
  struct UsualLine {
    std::uint32_t pre, pre_n, post, post_n, tail, tail_n;
  };
  std::vector<UsualLine> usual_;
  std::string usual_text_;
  std::size_t usual_longest_ = 0;       // the longest line's planned text
  Text usual_lead_;                     // what starts each usual line of the interval
  bool usual_shared_tail_ = false;      // every usual line's tail the same
  std::uint64_t usual_runtime_ns_ = 0;  // the last run time written, and its digits (and the shared tail)
  Text usual_runtime_;
};

// 1234567 -> "1,234,567"
void thousands_to(Text& out, std::uint64_t v);

}  // namespace pmukit::tools
