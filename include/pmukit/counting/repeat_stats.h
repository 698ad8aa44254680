// pmukit -- perf stat -r: the same counting run made N times, each line's count reported as its
// mean over the runs, with the spread perf prints beside it, "( +- 1.23% )": the standard error of
// the mean (the sample standard deviation over sqrt(N)) relative to the mean, in percent (perf's
// util/stat.c, stddev_stats and rel_stddev_stats). The runs' rows are summed into lines as the
// report shows them (RowGroups), and the statistics are the lines': a merged IMC count's spread,
// not each box's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "pmukit/counting/backend.h"
#include "pmukit/counting/metric_runner.h"
#include "pmukit/counting/row_groups.h"

namespace pmukit::counting {

// A value's mean and spread over the runs, updated one run at a time (Welford's method, as perf's
// update_stats).
class RunningStats {
 public:
  void add(double v);
  std::size_t n() const { return n_; }
  double mean() const { return mean_; }
  // The standard error of the mean: 0 with fewer than two runs.
  double stddev_of_mean() const;
  // It relative to the mean, in percent (0 for a mean of 0).
  double relative_pct() const;

 private:
  std::size_t n_ = 0;
  double mean_ = 0, m2_ = 0;
};

class RepeatedRuns {
 public:
  explicit RepeatedRuns(RowGroups groups) : groups_(std::move(groups)) {}
  // One run's totals. Each run must give the same lines (the same events on the same units), as
  // repeating one command line does; a run that differs throws Error. The rows may name strings
  // the run owns: what is kept is copied.
  void add(const std::vector<Row>& rows, const std::vector<MetricRow>& metrics, std::uint64_t elapsed_ns);
  std::size_t runs() const { return elapsed_.n(); }

  // Each line with its mean count (rounded to the nearest whole count), raw count and times, its
  // names those of the first run's line. Valid while this object lives.
  const std::vector<Row>& mean_rows() const { return mean_; }
  // Per line of mean_rows(): the spread of its count, in percent.
  std::vector<double> spread_pct() const;
  // The metrics' mean values (a metric that was not valid in every run is not valid).
  std::vector<MetricRow> mean_metrics() const;
  const RunningStats& elapsed() const { return elapsed_; }

 private:
  void keep_names(const std::vector<const Row*>& lines);

  RowGroups groups_;
  std::deque<std::string> names_;  // the first run's event, PMU, unit and backend names
  std::vector<Row> mean_;
  std::vector<RunningStats> count_, raw_, enabled_, running_;
  std::vector<MetricRow> metrics_;
  std::vector<RunningStats> metric_values_;
  std::vector<bool> metric_valid_;
  RunningStats elapsed_;
};

}  // namespace pmukit::counting
