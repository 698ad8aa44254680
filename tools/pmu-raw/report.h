// pmu-raw -- output in perf stat's shapes: a human table, CSV (-x SEP) and JSON lines (-j), per
// event (merged over every unit it counts on, as perf merges uncore PMUs), per socket or per box.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/backend.h"
#include "common/metric_runner.h"

namespace pmukit::tools {

enum class Aggregation { Merged, PerSocket, PerBox };
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
  // Rows summed per (event, group) in -e order.
  std::vector<Row> aggregate(const std::vector<Row>& rows) const;
  std::string group_of(const Row& r) const;

 private:
  // What a row is summed under: (socket, "") per socket, (-1, pmu) per box, (-1, "") merged.
  using GroupKey = std::pair<int, std::string_view>;
  GroupKey group_key(const Row& r) const;
  void print_rows(const std::string& time, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics);
  void print_metrics(const std::string& time, const std::vector<MetricRow>& metrics);
  ReportOptions o_;
  bool header_done_ = false;
};

// 1234567 -> "1,234,567"
std::string thousands(std::uint64_t v);

}  // namespace pmukit::tools
