// pmu-exporter -- the HTTP routes, served by libevent's evhttp (one event loop on one thread: a
// scrape renders the latest snapshot, which takes far less than the network round trip).
#include "http_routes.h"

#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "connection_guard.h"
#include "pcm_names.h"
#include "pmukit/counting/prometheus.h"
#include "pmukit/util/error.h"

namespace pmukit::exporter {

// The loop's parts, freed in the order libevent requires (the guard's hold on the connections and
// its timers, then evhttp, then their base). stop() wakes
// the loop through an eventfd: libevent was not told to use threads, so the server thread alone
// calls into it, and the other thread only writes to that descriptor.
struct HttpServer::Loop {
  event_base* base = event_base_new();
  evhttp* http = base ? evhttp_new(base) : nullptr;
  int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  event* stop = nullptr;
  std::unique_ptr<ConnectionGuard> guard;

  ~Loop() {
    if (stop) event_free(stop);
    if (guard) guard->detach();
    if (http) evhttp_free(http);
    if (base) event_base_free(base);
    if (wake >= 0) ::close(wake);
  }
};

namespace {

// Request limits: a scrape is a GET with a few headers and no body.
constexpr ev_ssize_t kMaxHeaderBytes = 16 * 1024;
constexpr ev_ssize_t kMaxBodyBytes = 0;

std::string index_page(const Config& c, const RunInfo& info) {
  std::string out = fmt::format(
      "pmu-exporter (pmukit): uncore PMU counters for Prometheus\n\n"
      "/metrics   {}\n"
      "/healthz   the backend state\n\n"
      "Read every {} s ({}), series {}; metrics over the last {} s.\n\nEvents:\n",
      c.naming == Naming::Pcm ? "Intel PCM pcm-sensor-server's names (DRAM_Reads, DRAM_Writes), text format 0.0.4"
                              : "the counters and metrics (Prometheus text format, or OpenMetrics when asked for)",
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

void reply(evhttp_request* req, int status, const std::string& body, const char* content_type) {
  evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", content_type);
  evbuffer* buf = evbuffer_new();
  if (!buf) {
    evhttp_send_error(req, HTTP_INTERNAL, nullptr);
    return;
  }
  evbuffer_add(buf, body.data(), body.size());
  evhttp_send_reply(req, status, status == HTTP_OK ? "OK" : "Service Unavailable", buf);
  evbuffer_free(buf);
}

template <void (HttpServer::*Route)(evhttp_request*) const>
void route(evhttp_request* req, void* server) {
  (static_cast<const HttpServer*>(server)->*Route)(req);
}

void on_stop(evutil_socket_t fd, short, void* base) {
  std::uint64_t count;
  [[maybe_unused]] auto n = ::read(fd, &count, sizeof count);
  event_base_loopbreak(static_cast<event_base*>(base));
}

int bound_port(evhttp_bound_socket* bound) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(evhttp_bound_socket_get_fd(bound), reinterpret_cast<sockaddr*>(&addr), &len) != 0) return -1;
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
}

}  // namespace

HttpServer::HttpServer(const Config& config, const SnapshotBoard& board, RunInfo info)
    : config_(config), board_(board), info_(std::move(info)), loop_(std::make_unique<Loop>()) {
  if (!loop_->http || loop_->wake < 0) throw Error("HTTP server: cannot create its event loop");
  loop_->guard = std::make_unique<ConnectionGuard>(loop_->base, loop_->http, config.http);
  add_routes();
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::add_routes() {
  evhttp_set_allowed_methods(loop_->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
  evhttp_set_max_headers_size(loop_->http, kMaxHeaderBytes);
  evhttp_set_max_body_size(loop_->http, kMaxBodyBytes);
  evhttp_set_cb(loop_->http, "/metrics", route<&HttpServer::metrics>, this);
  evhttp_set_cb(loop_->http, "/healthz", route<&HttpServer::health>, this);
  evhttp_set_cb(loop_->http, "/", route<&HttpServer::index>, this);
}

void HttpServer::metrics(evhttp_request* req) const {
  auto snapshot = board_.latest();  // the only shared state a scrape touches, under the board's lock
  if (config_.naming == Naming::Pcm) return reply(req, HTTP_OK, render_pcm(*snapshot), kPcmContentType);
  const char* accept = evhttp_find_header(evhttp_request_get_input_headers(req), "Accept");
  counting::Exposition e = counting::negotiate(accept ? accept : "");
  reply(req, HTTP_OK, counting::render(*snapshot, e, config_.timestamps), counting::content_type(e));
}

void HttpServer::health(evhttp_request* req) const {
  auto s = board_.latest();
  nlohmann::ordered_json j;
  j["status"] = s->reads > 0 ? "counting" : "starting";
  j["reads"] = s->reads;
  j["counted_seconds"] = static_cast<double>(s->counted_ns) / 1e9;
  j["clock"] = info_.clock;
  j["backends"] = info_.notes;
  loop_->guard->sweep();  // on the loop's thread, as everything the guard does
  const HttpStats& h = loop_->guard->stats();
  j["http"] = {{"connections", h.open},
               {"accepted", h.accepted},
               {"timed_out", h.timed_out},
               {"evicted_idle", h.evicted},
               {"accept_failures", h.accept_failures}};
  reply(req, s->reads > 0 ? HTTP_OK : HTTP_SERVUNAVAIL, j.dump(2) + "\n", "application/json");
}

void HttpServer::index(evhttp_request* req) const {
  reply(req, HTTP_OK, index_page(config_, info_), "text/plain; charset=utf-8");
}

void HttpServer::start() {
  errno = 0;
  // Port 0: any free port (the tests' way to a free port; the chosen one is printed).
  auto* bound = evhttp_bind_socket_with_handle(loop_->http, config_.listen_host.c_str(),
                                               static_cast<ev_uint16_t>(config_.listen_port));
  port_ = bound ? bound_port(bound) : -1;
  if (port_ <= 0)
    throw Error(fmt::format("listen {}:{}: cannot bind ({})", config_.listen_host, config_.listen_port,
                            errno ? errno_text(errno) : "address not usable"));
  loop_->guard->watch(bound);
  loop_->stop = event_new(loop_->base, loop_->wake, EV_READ, on_stop, loop_->base);
  if (!loop_->stop || event_add(loop_->stop, nullptr) != 0) throw Error("HTTP server: cannot watch its stop event");
  // A stop() before the thread enters the loop still ends it: the eventfd stays readable.
  thread_ = std::thread([base = loop_->base] { event_base_dispatch(base); });
}

void HttpServer::stop() {
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(loop_->wake, &one, sizeof one);
  thread_.join();
}

}  // namespace pmukit::exporter
