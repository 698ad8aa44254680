// pmukit -- reading pmu-raw -j output (the record shapes are those pmu-raw writes, which
// follow perf stat -j: "interval", "counter-value", "unit", "event", "pcnt-running"; metrics as
// "metric-value", "metric-unit", "metric"; "socket" with --per-socket, "pmu" with --per-box; and
// pmu-raw's own "backend", "lost" and "metric-input").
#include "pmukit/counting/recorded_run.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::counting {

std::size_t RecordedRun::count(RecordKind kind) const {
  std::size_t n = 0;
  for (const auto& c : charts) n += c.kind == kind;
  return n;
}

namespace {

using Json = nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A reason for one bad line; read_recorded_run adds the file and line number.
struct BadLine {
  std::string reason;
};

struct Record {
  RecordKind kind = RecordKind::Event;
  std::string name, unit, label, backend;
  bool has_time = false;
  double t = kNaN, value = kNaN, pcnt = 100;
  bool lost = false;
  std::vector<std::string> input_of;  // "metric-input": the metrics an event was counted for alone
};

std::string text_field(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  throw BadLine{fmt::format("\"{}\" is not a string", key)};
}

// Values are strings in perf's JSON ("97778.52"), numbers in some writers; perf's "<not counted>"
// and "<not supported>", and pmu-raw's "nan" for a metric without data, are gaps.
double value_field(const Json& j, const char* key) {
  const auto& v = j.at(key);
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) throw BadLine{fmt::format("\"{}\" is not a number", key)};
  std::string s = v.get<std::string>();
  if (s == "nan" || s == "<not counted>" || s == "<not supported>") return kNaN;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0') throw BadLine{fmt::format("\"{}\": '{}' is not a number", key, s)};
  return d;
}

std::string join_label(std::string a, const std::string& b) {
  if (a.empty()) return b;
  return b.empty() ? a : a + " " + b;
}

// pmu-raw --per-box writes each box's own name in place of the PMU the event was given with
// (uncore_imc_3/cas_count_read/): one chart per event as written, one series per box.
std::string event_as_written(const std::string& event, const std::string& pmu) {
  if (pmu.empty() || event.size() <= pmu.size() || event.compare(0, pmu.size(), pmu) != 0 || event[pmu.size()] != '/')
    return event;
  std::string family(numbered_family(pmu).value_or(pmu));
  return family + event.substr(pmu.size());
}

Record parse_record(const Json& j, std::set<std::string>& grouping) {
  if (!j.is_object()) throw BadLine{"not a JSON object"};
  Record r;
  std::string socket = text_field(j, "socket"), cpu = text_field(j, "cpu"), pmu = text_field(j, "pmu");
  if (!socket.empty()) grouping.insert("socket");
  if (!cpu.empty()) grouping.insert("cpu"), cpu = "CPU" + cpu;
  if (!pmu.empty()) grouping.insert("pmu");
  if (j.contains("event")) {
    if (!j.contains("counter-value")) throw BadLine{"an \"event\" record without \"counter-value\""};
    r.name = event_as_written(text_field(j, "event"), pmu);
    r.unit = text_field(j, "unit");
    r.value = value_field(j, "counter-value");
    r.label = join_label(join_label(socket, cpu), pmu);
    r.backend = text_field(j, "backend");
    if (auto it = j.find("pcnt-running"); it != j.end() && it->is_number()) r.pcnt = it->get<double>();
    if (auto it = j.find("lost"); it != j.end() && it->is_boolean()) r.lost = it->get<bool>();
    if (auto it = j.find("metric-input"); it != j.end()) {
      if (!it->is_array()) throw BadLine{"\"metric-input\" is not a list of metric names"};
      for (const auto& name : *it) {
        if (!name.is_string()) throw BadLine{"\"metric-input\" is not a list of metric names"};
        r.input_of.push_back(name.get<std::string>());
      }
    }
  } else if (j.contains("metric")) {
    r.kind = RecordKind::Metric;
    if (!j.contains("metric-value")) throw BadLine{"a \"metric\" record without \"metric-value\""};
    std::string name = text_field(j, "metric");
    // "spr_dram_read_bw (uncore_imc)": the metric on one PMU (metric_runner.cpp).
    std::string on;
    if (auto open = name.rfind(" ("); open != std::string::npos && name.back() == ')') {
      on = name.substr(open + 2, name.size() - open - 3);
      name.resize(open);
    }
    r.name = name;
    r.unit = text_field(j, "metric-unit");
    r.value = value_field(j, "metric-value");
    r.label = join_label(join_label(socket, cpu), join_label(pmu, on));
  } else {
    throw BadLine{"neither an \"event\" nor a \"metric\" record (expected pmu-raw -j output)"};
  }
  if (r.name.empty()) throw BadLine{"an empty event or metric name"};
  if (auto it = j.find("interval"); it != j.end()) {
    if (!it->is_number() || it->get<double>() < 0) throw BadLine{"\"interval\" is not a number of seconds"};
    r.has_time = true;
    r.t = it->get<double>();
  }
  return r;
}

// "[json.exception.parse_error.101] parse error at line 1, column 7: syntax error ..." -> what
// follows the position, which read_recorded_run gives as the file's own line and column.
std::string json_reason(const std::string& what) {
  auto col = what.find("column ");
  auto colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

class Reader {
 public:
  explicit Reader(RecordedRun& run) : run_(run) {}

  void add(const Record& r) {
    auto key = std::tuple(r.kind, r.name, r.unit);
    auto [it, fresh] = chart_at_.emplace(key, run_.charts.size());
    if (fresh) run_.charts.push_back(RecordedChart{r.kind, r.name, r.unit, {}, {}});
    RecordedChart& chart = run_.charts[it->second];
    for (const auto& m : r.input_of)
      if (std::find(chart.input_of.begin(), chart.input_of.end(), m) == chart.input_of.end())
        chart.input_of.push_back(m);
    auto [sit, sfresh] = series_at_.emplace(std::pair(it->second, r.label), chart.series.size());
    if (sfresh) chart.series.push_back(RecordedSeries{r.label, {}, {}, 100});
    RecordedSeries& s = chart.series[sit->second];
    RecordedSample sample{r.t, r.value, r.value, r.lost};
    if (r.has_time) {
      double start = place_in_time(r.t);
      if (!s.samples.empty() && s.samples.back().t == r.t)
        throw BadLine{fmt::format("a second record for {}{} at {} s", r.name, describe(r.label), r.t)};
      if (r.kind == RecordKind::Event) sample.y = r.t > start ? r.value / (r.t - start) : kNaN;
    } else if (!s.samples.empty()) {
      throw BadLine{fmt::format("a second run total for {}{} (one pmu-raw run per file)", r.name, describe(r.label))};
    }
    s.samples.push_back(sample);
    if (!r.backend.empty()) s.backends.insert(r.backend);
    s.min_running_pct = std::min(s.min_running_pct, r.pcnt);
  }

  void check_form(const Record& r) {
    if (!form_) {
      form_ = r.has_time ? 1 : 2;
      run_.intervals = r.has_time;
    } else if (form_ != (r.has_time ? 1 : 2)) {
      throw BadLine{r.has_time ? "an interval record after run totals (one pmu-raw run per file)"
                               : "a run total (no \"interval\") after interval records (one pmu-raw run per file)"};
    }
  }

 private:
  static std::string describe(const std::string& label) { return label.empty() ? "" : " [" + label + "]"; }

  // Records of one interval share its end time; returns where the interval began.
  double place_in_time(double t) {
    auto& times = run_.times;
    if (times.empty() || t > times.back()) {
      times.push_back(t);
    } else if (t < times.back()) {
      throw BadLine{fmt::format("interval {} s comes after {} s (records out of time order: two runs in one file?)", t,
                                times.back())};
    }
    return times.size() >= 2 ? times[times.size() - 2] : 0.0;
  }

  RecordedRun& run_;
  int form_ = 0;  // 1 intervals, 2 run totals
  std::map<std::tuple<RecordKind, std::string, std::string>, std::size_t> chart_at_;
  std::map<std::pair<std::size_t, std::string>, std::size_t> series_at_;
};

// "uncore_cha_2" before "uncore_cha_10", "S1" before "S10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string_view x = std::string_view(a).substr(i, i2 - i), y = std::string_view(b).substr(j, j2 - j);
      while (x.size() > 1 && x[0] == '0') x.remove_prefix(1);
      while (y.size() > 1 && y[0] == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i2, j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

RecordedRun read_recorded_run(std::istream& in, const std::string& source) {
  RecordedRun run;
  run.source = source;
  Reader reader(run);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto text = trim(line);
    if (text.empty() || text.front() == '#') continue;  // perf stat -o's "# started on ..." header
    try {
      Json j;
      try {
        j = Json::parse(line);
      } catch (const Json::parse_error& e) {
        throw Error(fmt::format("{}:{}:{}: not JSON: {}", source, n, e.byte, json_reason(e.what())));
      }
      Record r = parse_record(j, run.grouping);
      reader.check_form(r);
      reader.add(r);
      ++run.records;
    } catch (const BadLine& b) {
      throw Error(fmt::format("{}:{}: {}", source, n, b.reason));
    } catch (const Json::exception& e) {
      throw Error(fmt::format("{}:{}: {}", source, n, json_reason(e.what())));
    }
  }
  if (in.bad()) throw Error(fmt::format("{}: read error", source));
  if (run.charts.empty()) throw Error(fmt::format("{}: no records (expected pmu-raw -j output)", source));
  // pmu-raw prints boxes in name order (uncore_cha_10 before uncore_cha_2): show them in number order.
  for (auto& c : run.charts)
    std::stable_sort(c.series.begin(), c.series.end(),
                     [](const RecordedSeries& a, const RecordedSeries& b) { return natural_less(a.label, b.label); });
  return run;
}

SeriesStats stats_of(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  SeriesStats s;
  s.n = values.size();
  if (values.empty()) {
    s.min = s.median = s.max = kNaN;
    return s;
  }
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  const std::size_t mid = values.size() / 2;
  s.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  return s;
}

SeriesStats stats_of(const RecordedSeries& series) {
  std::vector<double> ys;
  for (const auto& p : series.samples) ys.push_back(p.y);
  return stats_of(std::move(ys));
}

RecordedSeries sum_series(const RecordedChart& c) {
  std::map<double, std::pair<double, std::size_t>> at;
  for (const auto& s : c.series)
    for (const auto& p : s.samples) {
      auto& [sum, n] = at[p.t];
      if (std::isfinite(p.y)) sum += p.y, ++n;
    }
  RecordedSeries total{"sum", {}, {}, 100};
  for (const auto& [t, v] : at) total.samples.push_back({t, kNaN, v.second == c.series.size() ? v.first : kNaN, false});
  return total;
}

}  // namespace pmukit::counting
