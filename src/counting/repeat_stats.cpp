// pmukit -- perf stat -r's means and spreads over repeated runs.
#include "pmukit/counting/repeat_stats.h"

#include <cmath>

#include <fmt/format.h>

#include "pmukit/util/error.h"

namespace pmukit::counting {

void RunningStats::add(double v) {
  ++n_;
  const double delta = v - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (v - mean_);
}

double RunningStats::stddev_of_mean() const {
  if (n_ < 2) return 0;
  const double variance = m2_ / static_cast<double>(n_ - 1);
  return std::sqrt(variance / static_cast<double>(n_));
}

double RunningStats::relative_pct() const {
  return mean_ != 0 ? 100.0 * stddev_of_mean() / mean_ : 0.0;
}

namespace {

std::uint64_t whole(double v) {
  return v <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(v));
}

}  // namespace

void RepeatedRuns::keep_names(const std::vector<const Row*>& lines) {
  auto keep = [this](std::string_view s) -> std::string_view { return names_.emplace_back(s); };
  for (const Row* l : lines) {
    Row r = *l;
    r.event = keep(l->event), r.pmu = keep(l->pmu), r.unit = keep(l->unit), r.backend = keep(l->backend);
    mean_.push_back(r);
  }
  count_.resize(lines.size()), raw_.resize(lines.size());
  enabled_.resize(lines.size()), running_.resize(lines.size());
}

void RepeatedRuns::add(const std::vector<Row>& rows, const std::vector<MetricRow>& metrics, std::uint64_t elapsed_ns) {
  const auto& lines = groups_.aggregate(rows);
  const bool first = runs() == 0;
  if (first) {
    keep_names(lines);
    metrics_ = metrics;
    for (auto& m : metrics_) m.metric = nullptr;  // the run's catalog does not outlive it
    metric_values_.resize(metrics.size());
    metric_valid_.assign(metrics.size(), true);
  }
  if (lines.size() != mean_.size() || metrics.size() != metrics_.size())
    throw Error(fmt::format("run {} counted {} lines and {} metrics, the first {} and {}: the runs differ", runs() + 1,
                            lines.size(), metrics.size(), mean_.size(), metrics_.size()));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Row& l = *lines[i];
    count_[i].add(static_cast<double>(l.count)), raw_[i].add(static_cast<double>(l.raw));
    enabled_[i].add(static_cast<double>(l.enabled_ns)), running_[i].add(static_cast<double>(l.running_ns));
    Row& m = mean_[i];
    m.count = whole(count_[i].mean()), m.raw = whole(raw_[i].mean());
    m.enabled_ns = whole(enabled_[i].mean()), m.running_ns = whole(running_[i].mean());
    m.lost = m.lost || l.lost;
  }
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    metric_values_[i].add(metrics[i].value);
    metric_valid_[i] = metric_valid_[i] && metrics[i].valid;
  }
  elapsed_.add(static_cast<double>(elapsed_ns) / 1e9);
}

std::vector<double> RepeatedRuns::spread_pct() const {
  std::vector<double> out;
  for (const auto& c : count_) out.push_back(c.relative_pct());
  return out;
}

std::vector<MetricRow> RepeatedRuns::mean_metrics() const {
  std::vector<MetricRow> out = metrics_;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].value = metric_values_[i].mean();
    out[i].valid = metric_valid_[i];
  }
  return out;
}

}  // namespace pmukit::counting
