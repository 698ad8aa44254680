// pmu-exporter -- what one read of the counters publishes, and the board scrapes read it from.
//
// The counting thread builds a whole Snapshot, then swaps it in under a short lock; a scrape takes
// the latest under the same lock and renders it without holding anything, so any number of
// concurrent scrapes never delay a read of the counters (and a slow scraper delays no one).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace pmukit::exporter {

// One exported series of a counter family: the total since the exporter started, never reset.
struct CounterSample {
  bool bytes = false;  // pmukit_uncore_bytes_total, else pmukit_uncore_events_total
  std::string event, pmu, device;
  int socket = -1;
  double total = 0;
};

// One metric's value over the window, in the family's base unit.
struct GaugeSample {
  std::string family;  // pmukit_spr_dram_read_bw_bytes_per_second
  std::string unit;    // the OpenMetrics UNIT ("bytes_per_second"), "" when the name has none
  std::string help;
  std::string pmu;
  int socket = -1;
  double value = 0;
};

struct BackendSample {
  std::string pmu, backend;  // uncore_imc_0, direct
};

struct Snapshot {
  std::uint64_t reads = 0;        // reads of the counters so far (0: none yet)
  std::uint64_t counted_ns = 0;   // counting time since start, by the run's clock
  std::int64_t timestamp_ms = 0;  // when this read was made, in Unix milliseconds
  double window_s = 0;            // the time the gauges are computed over
  std::vector<CounterSample> counters;
  std::vector<GaugeSample> gauges;
  std::vector<BackendSample> backends;
};

class SnapshotBoard {
 public:
  void publish(std::shared_ptr<const Snapshot> s) {
    std::lock_guard<std::mutex> lock(mutex_);
    latest_ = std::move(s);
  }
  std::shared_ptr<const Snapshot> latest() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return latest_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> latest_ = std::make_shared<Snapshot>();
};

}  // namespace pmukit::exporter
