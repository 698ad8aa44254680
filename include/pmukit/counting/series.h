// pmukit -- a counting run as labelled time series, as a metrics exporter publishes them: counter
// series (totals since the start, never reset: events, or bytes where the event counts data), one
// gauge per metric instance over a sliding window of counting time, and which backend counts each
// PMU. pmu-exporter serves what a SeriesCollector makes from every read (prometheus.h renders it).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pmukit/counting/read_loop.h"

namespace pmukit::counting {

// How the counts of an event are labelled: one series per PMU unit (box), or summed per socket.
enum class Granularity { PerBox, PerSocket };
const char* granularity_name(Granularity g);  // "per-box", "per-socket"

// One configured event: what it counts (perf syntax) and how its series are labelled.
struct SeriesEvent {
  std::string event;                      // perf syntax, as pmu-raw -e takes it
  std::string name;                       // the event label; "" = what the spec names
  std::optional<double> bytes_per_count;  // the event counts bytes in units of this many
  std::string device;                     // the PCI device its filter selects (the device label)
  std::optional<Granularity> granularity;
};

struct SeriesOptions {
  std::vector<SeriesEvent> events;  // the run's first specs, in order (each may be a list)
  Granularity granularity = Granularity::PerBox;
  std::uint64_t metric_window_s = 10;  // the gauges are computed over this much counting time
  std::map<std::string, double> metric_params;
  std::string version;       // the exporter's, for pmukit_build_info
  bool since_start = false;  // also the metrics over the whole run (SeriesSnapshot::since_start)
};

// How the series of one spec are labelled and valued.
struct SeriesLabel {
  std::string event;  // the event label
  std::string pmu;    // the PMU as written (uncore_imc): the pmu label of per-socket series
  std::optional<double> bytes_per_count;
  std::string device;
  int device_socket = -1;  // the socket the device hangs from; -1 when unknown
  Granularity granularity = Granularity::PerBox;
  bool exported = true;  // a configured event's; a metric's input is not exported a second time
};

// The label of every spec of `run` (the options' events first, in order, then the events metrics
// added). A device must be one of the machine's PCI devices (Error naming it otherwise).
std::vector<SeriesLabel> series_labels(const SeriesOptions& options, const Run& run);

// One counter series: the total since the start, never reset.
struct CounterSample {
  bool bytes = false;  // counts bytes (pmukit_uncore_bytes_total), else events
  std::string event, pmu, device;
  int socket = -1;
  double total = 0;
};

// One metric's value over the window, in the family's base unit.
struct GaugeSample {
  std::string family;  // pmukit_dram_read_bytes_per_second
  std::string unit;    // the OpenMetrics UNIT ("bytes_per_second"), "" when the name has none
  std::string help;
  std::string pmu;
  std::string platform;  // the machine's platform ("spr"), "" when pmukit does not know it
  int socket = -1;
  double value = 0;
  std::string stack;  // an IIO stack's name ("PCIe0") for a metric bound per stack (pcie_to_device on Intel)
};

struct BackendSample {
  std::string pmu, backend;  // uncore_imc_0, direct
};

// What one read publishes.
struct SeriesSnapshot {
  std::uint64_t reads = 0;        // reads of the counters so far (0: none yet)
  std::uint64_t counted_ns = 0;   // counting time since start, by the run's clock
  std::int64_t timestamp_ms = 0;  // when this read was made, in Unix milliseconds
  double window_s = 0;            // the time the gauges are computed over
  std::string version, platform;  // pmukit_build_info: the exporter's version, the machine's platform
  std::vector<CounterSample> counters;
  std::vector<GaugeSample> gauges;
  std::vector<BackendSample> backends;
  std::vector<AbsentMetric> unavailable;  // neutral metric names no PMU here counts, and why
  // With SeriesOptions::since_start: each metric over all the counting time so far (a rate that,
  // times counted_ns, is the total: pmu-exporter's PCM names publish totals, as pcm-sensor-server).
  std::vector<GaugeSample> since_start;
};

// How often a continuous run reads: every `read_interval_ms`, sooner where a narrow direct counter
// must be read before it can wrap twice (Backend::max_read_period_ns).
std::uint64_t series_read_step_ns(std::uint64_t read_interval_ms, const Run& run);
// A ReadLoop's options for continuous series: a report every `step_ns` from the start (every series
// at zero first), one read after a jump of the clock, metrics left to the collector's window; on
// pmu-sim's virtual time it only watches the clock, so whoever moves it sets the pace.
LoopOptions series_loop_options(std::uint64_t step_ns);

// Keeps the totals since start of a run's reads (each read is a delta the backend has already
// extended across counter wraps), computes the metrics over the metric window, and makes one
// SeriesSnapshot per read.
class SeriesCollector {
 public:
  SeriesCollector(SeriesOptions options, const Run& run);
  // A read made `since_start_ns` into the run (a ReadLoop's interval rows). Error when two
  // configured events export the same series.
  SeriesSnapshot add_read(std::uint64_t since_start_ns, const std::vector<Row>& rows);
  const std::vector<SeriesLabel>& labels() const { return labels_; }

 private:
  std::vector<CounterSample> counter_samples() const;
  std::vector<GaugeSample> gauge_samples(std::uint64_t now);
  std::vector<GaugeSample> metric_samples(const std::vector<Row>& window, std::uint64_t window_ns) const;
  std::vector<BackendSample> backend_samples() const;

  SeriesOptions options_;
  const Run& run_;
  std::vector<SeriesLabel> labels_;
  std::uint64_t reads_ = 0;
  std::int64_t wall0_ms_ = 0;
  std::vector<Row> totals_;  // counts since start, one per row of a read
  // (time since start, totals) over the metric window
  std::deque<std::pair<std::uint64_t, std::vector<std::uint64_t>>> history_;
};

}  // namespace pmukit::counting
