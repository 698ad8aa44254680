// pmu-exporter -- continuous counting and the snapshots it publishes.
#include "counting.h"

#include <memory>

namespace pmukit::exporter {

namespace {

counting::SeriesOptions series_options(const Config& c) {
  return {c.events, c.granularity, c.metric_window_s, c.metric_params, kVersion, c.naming == Naming::Pcm};
}

}  // namespace

Publisher::Publisher(const Config& config, const counting::Run& run, SnapshotBoard& board)
    : board_(board), collector_(series_options(config), run),
      step_ns_(counting::series_read_step_ns(config.read_interval_ms, run)) {}

void Publisher::interval(std::uint64_t now, std::uint64_t, const std::vector<counting::Row>& rows,
                         const std::vector<counting::MetricRow>&) {
  board_.publish(std::make_shared<const Snapshot>(collector_.add_read(now, rows)));
}

}  // namespace pmukit::exporter
