// pmu-exporter -- the HTTP routes: a scrape renders the latest snapshot, which takes far less than
// the network round trip.
#include "http_routes.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "exposition.h"

namespace pmukit::exporter {

namespace {

std::string index_page(const Config& c, const RunInfo& info) {
  std::string out =
      fmt::format("pmu-exporter (pmukit): uncore PMU counters for Prometheus\n\n"
                  "/metrics   the counters and metrics (Prometheus text format, or OpenMetrics when asked for)\n"
                  "/healthz   the backend state\n\n"
                  "Read every {} s ({}), series {}; metrics over the last {} s.\n\nEvents:\n",
                  info.read_interval_s, info.clock, granularity_name(c.granularity), c.metric_window_s);
  for (const auto& e : c.events)
    out += fmt::format("  {}{}{}\n", e.event, e.name.empty() ? "" : " as " + e.name,
                       e.device.empty() ? "" : " (device " + e.device + ")");
  out += "Metrics:\n";
  for (const auto& m : info.metrics) out += fmt::format("  {}\n", m);
  out += "Backends:\n";
  for (const auto& n : info.notes) out += fmt::format("  {}\n", n);
  return out;
}

HttpLimits limits_of(const Config& c) {
  HttpLimits l;
  l.max_connections = c.max_connections;
  l.request_timeout_ms = c.request_timeout_ms;
  l.idle_timeout_ms = c.idle_timeout_ms;
  return l;
}

}  // namespace

HttpServer::HttpServer(const Config& config, const SnapshotBoard& board, RunInfo info)
    : config_(config), board_(board), info_(std::move(info)),
      service_(config.listen_host, config.listen_port, limits_of(config),
               [this](const HttpRequest& req) { return route(req); }) {}

HttpServer::~HttpServer() {
  stop();
}

HttpResponse HttpServer::route(const HttpRequest& req) const {
  if (req.path == "/metrics") return metrics(req);
  if (req.path == "/healthz") return health();
  if (req.path == "/") return index();
  return HttpResponse{404, "text/plain; charset=utf-8", "Not Found\n"};
}

HttpResponse HttpServer::metrics(const HttpRequest& req) const {
  auto snapshot = board_.latest();  // the only shared state a scrape touches, under the board's lock
  Exposition e = negotiate(req.accept);
  return HttpResponse{200, content_type(e), render(*snapshot, e, config_.timestamps)};
}

HttpResponse HttpServer::health() const {
  auto s = board_.latest();
  nlohmann::ordered_json j;
  j["status"] = s->reads > 0 ? "counting" : "starting";
  j["reads"] = s->reads;
  j["counted_seconds"] = static_cast<double>(s->counted_ns) / 1e9;
  j["clock"] = info_.clock;
  j["backends"] = info_.notes;
  const auto& h = service_.stats();
  j["http"] = {{"connections", h.open.load()},
               {"accepted", h.accepted.load()},
               {"timed_out", h.timed_out.load()},
               {"evicted_idle", h.evicted.load()},
               {"accept_failures", h.accept_failures.load()}};
  return HttpResponse{s->reads > 0 ? 200 : 503, "application/json", j.dump(2) + "\n"};
}

HttpResponse HttpServer::index() const {
  return HttpResponse{200, "text/plain; charset=utf-8", index_page(config_, info_)};
}

}  // namespace pmukit::exporter
