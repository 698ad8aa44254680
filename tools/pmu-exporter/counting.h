// pmu-exporter -- continuous counting: the library's read loop reads the counters every read
// interval of the run's clock, and what each read counted is published for the scrapes.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "pmukit/counting/read_loop.h"
#include "snapshot.h"

namespace pmukit::exporter {

// How the series of one spec are labelled and valued.
struct SpecLabel {
  std::string event;  // the event label
  std::string pmu;    // the PMU as written (uncore_imc): the pmu label of per-socket series
  std::optional<double> bytes_per_count;
  std::string device;
  int device_socket = -1;  // the socket the device hangs from; -1 when unknown
  Granularity granularity = Granularity::PerBox;
};

// The label of every spec of `setup` (config events first, in order, then the events metrics added).
// A device must be one of the machine's PCI devices (Error naming it otherwise).
std::vector<SpecLabel> spec_labels(const Config& config, const counting::Run& setup);

// The read loop's sink: keeps the totals since start (each read is a delta the backend has already
// extended across counter wraps), computes the metrics over the metric window, and publishes one
// Snapshot per read.
class Publisher : public counting::Sink {
 public:
  Publisher(const Config& config, const counting::Run& run, SnapshotBoard& board);
  // How the read loop reads for the exporter: every read interval (shorter where a narrow counter
  // must be read sooner), from the start; on pmu-sim's virtual time it only watches the clock, so
  // whoever moves it (pmu-sim advance) sets the pace, and each read is stamped with its virtual time.
  counting::LoopOptions loop_options() const;
  std::uint64_t read_interval_ns() const { return step_ns_; }
  void interval(std::uint64_t since_start_ns, std::uint64_t window_ns, const std::vector<counting::Row>& rows,
                const std::vector<counting::MetricRow>& metrics) override;

 private:
  std::vector<CounterSample> counter_samples() const;
  std::vector<GaugeSample> gauge_samples(std::uint64_t now);
  std::vector<BackendSample> backend_samples() const;

  const Config& config_;
  const counting::Run& run_;
  SnapshotBoard& board_;
  std::vector<SpecLabel> labels_;
  std::map<std::string, double> params_;
  std::uint64_t step_ns_ = 0, reads_ = 0;
  std::int64_t wall0_ms_ = 0;
  std::vector<counting::Row> totals_;  // counts since start, one per row of a read
  // (time since start, totals) over the metric window
  std::deque<std::pair<std::uint64_t, std::vector<std::uint64_t>>> history_;
};

}  // namespace pmukit::exporter
