// pmukit -- Prometheus names, the text format and OpenMetrics
// (https://prometheus.io/docs/instrumenting/exposition_formats/, OpenMetrics 1.0.0).
#include "pmukit/counting/prometheus.h"

#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace pmukit::counting {

std::string name_part(std::string_view text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

MetricFamily metric_family(std::string_view metric, std::string_view unit, std::string_view export_as) {
  struct Base {
    std::string_view unit, suffix;
    double factor;
  };
  // Decimal SI prefixes for rates and frequencies (the metrics' GB/s are 1e9 bytes per second).
  static constexpr std::array<Base, 8> bases{{{"GB/s", "bytes_per_second", 1e9},
                                              {"MB/s", "bytes_per_second", 1e6},
                                              {"B/s", "bytes_per_second", 1},
                                              {"%", "ratio", 0.01},
                                              {"ns", "seconds", 1e-9},
                                              {"us", "seconds", 1e-6},
                                              {"GHz", "hertz", 1e9},
                                              {"MHz", "hertz", 1e6}}};
  const std::string base = "pmukit_" + name_part(export_as.empty() ? metric : export_as);
  for (const auto& b : bases)
    if (unit == b.unit) return {base + "_" + std::string(b.suffix), std::string(b.suffix), b.factor};
  if (unit.empty()) return {base, "", 1};
  std::string suffix = name_part(unit);
  if (auto slash = unit.find('/'); slash != std::string_view::npos)
    suffix = name_part(unit.substr(0, slash)) + "_per_" + name_part(unit.substr(slash + 1));
  return {base + "_" + suffix, "", 1};  // "cycles", "requests/cycle": counts, no base unit
}

namespace {

struct Family {
  std::string name;  // OpenMetrics' family name: without the _total or _info of its samples
  std::string type;  // counter, gauge, info
  std::string unit;
  std::string help;
  std::vector<std::pair<std::string, double>> samples;  // label set, value
};

// Label values escape \, " and newlines (both formats).
std::string escape(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

// HELP text escapes \ and newlines (and " in OpenMetrics, where it is a quoted string's rule).
std::string escape_help(std::string_view v, bool om) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || (om && c == '"')) out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

std::string labels(int socket, std::string_view pmu, std::string_view event, std::string_view device,
                   std::string_view platform = "", std::string_view stack = "") {
  std::vector<std::string> parts;
  if (socket >= 0) parts.push_back(fmt::format("socket=\"{}\"", socket));
  if (!pmu.empty()) parts.push_back(fmt::format("pmu=\"{}\"", escape(pmu)));
  if (!stack.empty()) parts.push_back(fmt::format("stack=\"{}\"", escape(stack)));
  if (!platform.empty()) parts.push_back(fmt::format("platform=\"{}\"", escape(platform)));
  if (!event.empty()) parts.push_back(fmt::format("event=\"{}\"", escape(event)));
  if (!device.empty()) parts.push_back(fmt::format("device=\"{}\"", escape(device)));
  return parts.empty() ? "" : fmt::format("{{{}}}", fmt::join(parts, ","));
}

std::string value_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::vector<Family> families(const SeriesSnapshot& s) {
  Family bytes{"pmukit_uncore_bytes",
               "counter",
               "bytes",
               "Data an uncore PMU event counted since pmu-exporter started, in bytes (wrap-extended, never reset)",
               {}};
  Family events{"pmukit_uncore_events",
                "counter",
                "",
                "Counts of an uncore PMU event since pmu-exporter started (wrap-extended, never reset)",
                {}};
  for (const auto& c : s.counters)
    (c.bytes ? bytes : events).samples.emplace_back(labels(c.socket, c.pmu, c.event, c.device), c.total);
  std::vector<Family> out;
  for (auto* f : {&bytes, &events})
    if (!f->samples.empty()) out.push_back(std::move(*f));
  std::map<std::string, std::size_t> gauge_index;
  for (const auto& g : s.gauges) {
    auto [it, added] = gauge_index.try_emplace(g.family, out.size());
    if (added) out.push_back({g.family, "gauge", g.unit, fmt::format("{}, over the last metric_window_s", g.help), {}});
    out[it->second].samples.emplace_back(labels(g.socket, g.pmu, "", "", g.platform, g.stack), g.value);
  }
  Family backend{
      "pmukit_backend", "info", "", "The backend that counts a PMU's events: direct (registers) or perf", {}};
  for (const auto& b : s.backends)
    backend.samples.emplace_back(fmt::format("{{pmu=\"{}\",backend=\"{}\"}}", escape(b.pmu), escape(b.backend)), 1);
  if (!backend.samples.empty()) out.push_back(std::move(backend));
  Family unavailable{"pmukit_metric_unavailable",
                     "info",
                     "",
                     "A metric asked for by its platform-neutral name that no PMU of this machine counts, and why",
                     {}};
  for (const auto& a : s.unavailable)
    unavailable.samples.emplace_back(fmt::format("{{metric=\"{}\",platform=\"{}\",reason=\"{}\"}}", escape(a.name),
                                                 escape(s.platform), escape(a.reason)),
                                     1);
  if (!unavailable.samples.empty()) out.push_back(std::move(unavailable));
  out.push_back({"pmukit_build",
                 "info",
                 "",
                 "The exporter's version and the machine's platform (\"\" when pmukit does not know it)",
                 {{fmt::format("{{version=\"{}\",platform=\"{}\"}}", escape(s.version), escape(s.platform)), 1}}});
  out.push_back({"pmukit_reads",
                 "counter",
                 "",
                 "Reads of the counters since pmu-exporter started",
                 {{"", static_cast<double>(s.reads)}}});
  out.push_back({"pmukit_metric_window_seconds",
                 "gauge",
                 "seconds",
                 "Counting time the metric gauges are computed over",
                 {{"", s.window_s}}});
  return out;
}

// The name samples of `f` carry, and the name its TYPE and HELP lines use in each format.
std::string sample_name(const Family& f) {
  return f.type == "counter" ? f.name + "_total" : f.type == "info" ? f.name + "_info" : f.name;
}

}  // namespace

Exposition negotiate(std::string_view accept) {
  double open_q = -1, text_q = -1;
  std::size_t pos = 0;
  while (pos <= accept.size()) {
    auto end = accept.find(',', pos);
    std::string_view item = accept.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    double q = 1;
    if (auto qp = item.find(";q="); qp != std::string_view::npos)
      q = std::atof(std::string(item.substr(qp + 3)).c_str());
    if (item.find("application/openmetrics-text") != std::string_view::npos) open_q = std::max(open_q, q);
    if (item.find("text/plain") != std::string_view::npos) text_q = std::max(text_q, q);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return open_q > 0 && open_q >= text_q ? Exposition::OpenMetrics : Exposition::Prometheus;
}

const char* content_type(Exposition e) {
  return e == Exposition::OpenMetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                      : "text/plain; version=0.0.4; charset=utf-8";
}

std::string render(const SeriesSnapshot& s, Exposition e, bool timestamps) {
  const bool om = e == Exposition::OpenMetrics;
  std::string stamp;
  if (timestamps)
    stamp = om ? fmt::format(" {}.{:03}", s.timestamp_ms / 1000, s.timestamp_ms % 1000)
               : fmt::format(" {}", s.timestamp_ms);
  std::string out;
  for (const auto& f : families(s)) {
    const std::string sample = sample_name(f);
    const std::string& head = om ? f.name : sample;
    const std::string type = !om && f.type == "info" ? "gauge" : f.type;  // the text format has no info type
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", head, escape_help(f.help, om), head, type);
    if (om && !f.unit.empty()) out += fmt::format("# UNIT {} {}\n", head, f.unit);
    for (const auto& [label_set, value] : f.samples)
      out += fmt::format("{}{} {}{}\n", sample, label_set, value_text(value), stamp);
  }
  if (om) out += "# EOF\n";
  return out;
}

}  // namespace pmukit::counting
