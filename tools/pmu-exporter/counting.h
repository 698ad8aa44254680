// pmu-exporter -- continuous counting: the library's read loop reads the counters every read
// interval of the run's clock, and the series each read makes (counting/series.h) are published
// for the scrapes.
#pragma once

#include <cstdint>
#include <vector>

#include "config.h"
#include "pmukit/counting/read_loop.h"
#include "pmukit/counting/series.h"
#include "snapshot.h"

namespace pmukit::exporter {

// The read loop's sink: one Snapshot per read, on the board.
class Publisher : public counting::Sink {
 public:
  Publisher(const Config& config, const counting::Run& run, SnapshotBoard& board);
  counting::LoopOptions loop_options() const { return counting::series_loop_options(step_ns_); }
  std::uint64_t read_interval_ns() const { return step_ns_; }
  void interval(std::uint64_t since_start_ns, std::uint64_t window_ns, const std::vector<counting::Row>& rows,
                const std::vector<counting::MetricRow>& metrics) override;

 private:
  SnapshotBoard& board_;
  counting::SeriesCollector collector_;
  std::uint64_t step_ns_ = 0;
};

}  // namespace pmukit::exporter
