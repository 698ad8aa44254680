// pmu-exporter -- continuous counting: reads the counters every read interval of the run's clock,
// keeps totals since start (each read is a delta the backend has already extended across counter
// wraps), computes the metrics over the window, and publishes one Snapshot per read.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/counting_setup.h"
#include "config.h"
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
std::vector<SpecLabel> spec_labels(const Config& config, const tools::CountingSetup& setup);

class Counting {
 public:
  Counting(const Config& config, tools::CountingSetup& setup, SnapshotBoard& board);
  // Starts the backend and publishes the first snapshot (every series, at zero).
  void start();
  // Publishes a snapshot per read until g_interrupted, then stops the backend. On pmu-sim's
  // virtual time it only watches the clock: whoever moves it (pmu-sim advance) sets the pace, and
  // each read is stamped with its virtual time.
  void run();
  std::uint64_t read_interval_ns() const { return step_ns_; }

 private:
  void read(std::uint64_t now);
  std::vector<CounterSample> counter_samples() const;
  std::vector<GaugeSample> gauge_samples(std::uint64_t now);
  std::vector<BackendSample> backend_samples() const;

  const Config& config_;
  tools::CountingSetup& setup_;
  SnapshotBoard& board_;
  std::vector<SpecLabel> labels_;
  std::map<std::string, double> params_;
  std::uint64_t step_ns_ = 0, t0_ = 0, reads_ = 0;
  std::int64_t wall0_ms_ = 0;
  std::vector<tools::Row> totals_;                                            // counts since start, one per backend row
  std::deque<std::pair<std::uint64_t, std::vector<std::uint64_t>>> history_;  // (time, totals) over the window
};

}  // namespace pmukit::exporter
