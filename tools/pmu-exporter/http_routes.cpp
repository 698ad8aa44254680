// pmu-exporter -- the HTTP routes.
#include "http_routes.h"

#include <cerrno>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "exposition.h"
#include "pmukit/util/error.h"

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

}  // namespace

HttpServer::HttpServer(const Config& config, const SnapshotBoard& board, RunInfo info)
    : config_(config), board_(board), info_(std::move(info)), server_(std::make_unique<httplib::Server>()) {
  add_routes();
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::add_routes() {
  server_->Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    auto snapshot = board_.latest();  // the only shared state a scrape touches, under the board's lock
    Exposition e = negotiate(req.get_header_value("Accept"));
    res.set_content(render(*snapshot, e, config_.timestamps), content_type(e));
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    auto s = board_.latest();
    nlohmann::ordered_json j;
    j["status"] = s->reads > 0 ? "counting" : "starting";
    j["reads"] = s->reads;
    j["counted_seconds"] = static_cast<double>(s->counted_ns) / 1e9;
    j["clock"] = info_.clock;
    j["backends"] = info_.notes;
    res.status = s->reads > 0 ? 200 : 503;
    res.set_content(j.dump(2) + "\n", "application/json");
  });
  server_->Get("/", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(index_page(config_, info_), "text/plain; charset=utf-8");
  });
}

void HttpServer::start() {
  errno = 0;
  // Port 0: any free port (the tests' way to a free port; the chosen one is printed).
  port_ = config_.listen_port == 0
              ? server_->bind_to_any_port(config_.listen_host)
              : (server_->bind_to_port(config_.listen_host, config_.listen_port) ? config_.listen_port : -1);
  if (port_ <= 0)
    throw Error(fmt::format("listen {}:{}: cannot bind ({})", config_.listen_host, config_.listen_port,
                            errno ? errno_text(errno) : "address not usable"));
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    thread_done_ = true;
  });
  // cpp-httplib's stop() does nothing until the server thread has entered its accept loop (it sets
  // is_running there), so a stop right after start (a configuration error found next) would leave
  // that thread serving and the join in stop() waiting forever. Wait until it serves or has ended.
  while (!server_->is_running() && !thread_done_) std::this_thread::yield();
}

void HttpServer::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace pmukit::exporter
