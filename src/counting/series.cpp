// pmukit -- a counting run as labelled time series.
#include "pmukit/counting/series.h"

#include <time.h>

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "pmukit/access/bdf.h"
#include "pmukit/counting/prometheus.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "pmukit/util/units.h"

namespace pmukit::counting {

namespace {

// "uncore_imc/cas_count_read/" -> "cas_count_read": the event label, the PMU being a label of its own.
std::string terms_as_written(const syntax::EventSpec& s) {
  auto first = s.text.find('/'), last = s.text.rfind('/');
  if (first == std::string::npos || last <= first) return s.text;
  return s.text.substr(first + 1, last - first - 1);
}

std::int64_t unix_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

// The socket of the PCI device `bdf` (its NUMA node's package), -1 when the machine does not say.
int device_socket(const std::string& bdf, const discovery::DiscoveryResult& found) {
  auto address = Bdf::parse(bdf);
  if (!address) throw Error(fmt::format("device '{}': not a PCI address (DDDD:BB:DD.F)", bdf));
  for (const auto& d : found.devices)
    if (d.bdf == *address) return d.numa_node < 0 ? -1 : found.topology.socket_of_node(d.numa_node).value_or(-1);
  throw Error(fmt::format("device {}: no such PCI device on this machine", bdf));
}

}  // namespace

const char* granularity_name(Granularity g) {
  return g == Granularity::PerSocket ? "per-socket" : "per-box";
}

std::vector<SeriesLabel> series_labels(const SeriesOptions& options, const Run& run) {
  const auto& specs = run.specs;
  std::vector<SeriesLabel> labels;
  for (const auto& e : options.events) {
    const int socket = e.device.empty() ? -1 : device_socket(e.device, run.found);
    for (std::size_t n = syntax::parse_event_list(e.event).size(); n > 0; --n)
      labels.push_back({e.name, "", e.bytes_per_count, e.device, socket, e.granularity.value_or(options.granularity)});
  }
  labels.resize(specs.size(), SeriesLabel{"", "", std::nullopt, "", -1, options.granularity, false});
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (labels[i].event.empty()) labels[i].event = specs[i].name.empty() ? terms_as_written(specs[i]) : specs[i].name;
    labels[i].pmu = specs[i].pmu;
  }
  return labels;
}

std::uint64_t series_read_step_ns(std::uint64_t read_interval_ms, const Run& run) {
  return std::min<std::uint64_t>(read_interval_ms * 1'000'000ull, run.backend->max_read_period_ns());
}

LoopOptions series_loop_options(std::uint64_t step_ns) {
  LoopOptions l;
  l.interval_ns = step_ns;
  l.watch_virtual_time = true;  // only watch pmu-sim's virtual time: whoever moves it sets the pace
  l.watch_nap_ns = 2'000'000;
  l.skip_missed_intervals = true;  // after a jump of the clock, one read, not a burst
  l.report_at_start = true;        // every series published at zero
  l.partial_last_interval = false;
  l.evaluate_metrics = false;  // over the metric window instead (SeriesCollector)
  return l;
}

SeriesCollector::SeriesCollector(SeriesOptions options, const Run& run)
    : options_(std::move(options)), run_(run), labels_(series_labels(options_, run)) {}

SeriesSnapshot SeriesCollector::add_read(std::uint64_t now, const std::vector<Row>& rows) {
  if (totals_.empty()) {
    wall0_ms_ = unix_ms();
    totals_ = rows;
  } else {
    for (std::size_t i = 0; i < rows.size() && i < totals_.size(); ++i) counting::add_read(totals_[i], rows[i]);
  }
  std::vector<std::uint64_t> counts;
  for (std::size_t i = 0; i < totals_.size(); ++i) {
    // A Prometheus counter never goes down, but a multiplexed estimate (raw x enabled / running
    // over the run) can, when a turn ran longer than the last: publish the highest estimate yet.
    if (!history_.empty() && i < history_.back().second.size())
      totals_[i].count = std::max(totals_[i].count, history_.back().second[i]);
    counts.push_back(totals_[i].count);
  }
  history_.emplace_back(now, std::move(counts));
  ++reads_;
  SeriesSnapshot s;
  s.reads = reads_;
  s.counted_ns = now;
  s.timestamp_ms = wall0_ms_ + static_cast<std::int64_t>(now / 1'000'000);
  s.counters = counter_samples();
  s.gauges = gauge_samples(now);
  s.window_s = static_cast<double>(now - history_.front().first) / 1e9;
  s.backends = backend_samples();
  s.version = options_.version;
  s.platform = run_.found.inventory.platform;
  s.unavailable = run_.absent_metrics;
  if (options_.since_start) s.since_start = metric_samples(totals_, now);
  return s;
}

std::vector<CounterSample> SeriesCollector::counter_samples() const {
  std::vector<CounterSample> out;
  // (bytes, event, pmu, device, socket) -> (its place in out, the spec it comes from)
  std::map<std::tuple<bool, std::string, std::string, std::string, int>, std::pair<std::size_t, std::size_t>> index;
  for (const auto& r : totals_) {
    const SeriesLabel& l = labels_.at(r.spec);
    if (!l.exported) continue;  // only a metric's input: the metric's gauge is its series
    // A PCIe PMU of the same name exists on every socket; its filter selects the device on one.
    if (l.device_socket >= 0 && r.socket != l.device_socket) continue;
    CounterSample c;
    c.event = l.event;
    c.device = l.device;
    c.socket = r.socket;
    c.pmu = l.granularity == Granularity::PerSocket && !l.pmu.empty() ? l.pmu : std::string(r.pmu);
    const double count = static_cast<double>(r.count);
    if (l.bytes_per_count) {
      c.bytes = true, c.total = count * *l.bytes_per_count;
    } else if (auto b = byte_unit(r.unit)) {
      c.bytes = true, c.total = count * r.scale * b->bytes;
    } else {
      c.total = count;  // an event's count: no unit to scale it into
    }
    // Units of one spec summed per socket, or per box; two specs on one label set are an error
    // (Prometheus refuses a scrape with a series twice in it).
    auto [it, added] = index.try_emplace({c.bytes, c.event, c.pmu, c.device, c.socket}, std::pair{out.size(), r.spec});
    if (added)
      out.push_back(std::move(c));
    else if (it->second.second == r.spec)
      out[it->second.first].total += c.total;
    else
      throw Error(fmt::format("event '{}' on {}: two configured events export this same series; give one a \"name\"",
                              c.event, c.pmu));
  }
  return out;
}

std::vector<GaugeSample> SeriesCollector::gauge_samples(std::uint64_t now) {
  const std::uint64_t window_ns = options_.metric_window_s * 1'000'000'000ull;
  while (history_.size() > 1 && now - history_[1].first >= window_ns) history_.pop_front();
  const auto& [t_old, old] = history_.front();
  if (now == t_old || run_.metrics.empty()) return {};
  std::vector<Row> window = totals_;
  for (std::size_t i = 0; i < window.size(); ++i) window[i].count -= old.at(i);
  return metric_samples(window, now - t_old);
}

std::vector<GaugeSample> SeriesCollector::metric_samples(const std::vector<Row>& window,
                                                         std::uint64_t window_ns) const {
  if (window_ns == 0 || run_.metrics.empty()) return {};
  std::set<std::pair<std::size_t, int>> present;  // (spec, socket) with a row
  for (const auto& r : window) present.insert({r.spec, r.socket});
  std::vector<GaugeSample> out;
  // A variable summed over several events also has a row per event after the metric's own: one series.
  std::set<std::tuple<const metrics::Metric*, std::string, int>> seen;
  for (const auto& m : evaluate_metrics(run_.metrics, window, window_ns, options_.metric_params, true)) {
    if (!seen.insert({m.metric, m.pmu, m.socket}).second) continue;
    auto inst = std::find_if(run_.metrics.begin(), run_.metrics.end(), [&](const auto& i) {  // a stack's is per socket
      return i.metric == m.metric && i.pmu == m.pmu && (i.group.empty() || i.socket == m.socket);
    });
    bool counted = false;  // a per-box metric has rows on its box's socket only
    for (const auto& [variable, specs] : inst->specs)
      for (std::size_t s : specs) counted = counted || present.count({s, m.socket});
    if (!counted || !m.valid) continue;
    auto f = metric_family(m.metric->name(), m.metric->unit(), m.metric->spec().export_as);
    out.push_back({f.name, f.unit, m.metric->spec().description, m.pmu, run_.found.inventory.platform, m.socket,
                   m.value * f.factor, inst->stack});
  }
  return out;
}

std::vector<BackendSample> SeriesCollector::backend_samples() const {
  std::vector<BackendSample> out;
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const auto& r : totals_)
    if (seen.insert({r.pmu, r.backend}).second) out.push_back({std::string(r.pmu), std::string(r.backend)});
  return out;
}

}  // namespace pmukit::counting
