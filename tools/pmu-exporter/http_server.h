// pmu-exporter -- the HTTP/1.1 server under the routes: one thread, one poll(2) loop, a bounded
// number of connections, each with a deadline.
//
// What a scrape endpoint needs and nothing more: GET and HEAD with no body, keep-alive, pipelined
// requests answered in order. Nothing a client does can take the server from other clients:
//  - a connection that has not begun a request within `idle_timeout_ms` is closed, and one whose
//    request (from its first byte to its end) or response takes longer than `request_timeout_ms`
//    is closed: a client that sends a byte now and then (slowloris) or never reads holds a slot
//    for a bounded time;
//  - at most `max_connections` are open; at the cap, the longest-idle connection (no request
//    begun) makes room for a new one, and when none is idle, new ones wait in the listen backlog;
//  - when accept(2) fails for want of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) the
//    listening socket rests, from 10 ms doubling to 1 s, instead of being polled again at once;
//  - every such condition is logged on stderr at most once per 10 s per kind, with how many
//    times it happened since its last line.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace pmukit::exporter {

struct HttpLimits {
  std::size_t max_connections = 64;
  std::uint64_t request_timeout_ms = 10'000;
  std::uint64_t idle_timeout_ms = 60'000;
  std::size_t max_header_bytes = 16 * 1024;
};

struct HttpRequest {
  std::string method;  // "GET", "HEAD"
  std::string path;    // the target without its query
  std::string accept;  // the Accept header, "" when absent
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// What the server went through, for /healthz (read from any thread).
struct HttpStats {
  std::atomic<std::uint64_t> open{0};             // connections open now
  std::atomic<std::uint64_t> accepted{0};         // since the start
  std::atomic<std::uint64_t> timed_out{0};        // closed at their deadline
  std::atomic<std::uint64_t> evicted{0};          // idle ones closed at the cap for a new one
  std::atomic<std::uint64_t> accept_failures{0};  // accept(2) errors that made the listener rest
};

class HttpService {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  HttpService(std::string host, int port, HttpLimits limits, Handler handler);
  ~HttpService();
  HttpService(const HttpService&) = delete;
  HttpService& operator=(const HttpService&) = delete;

  // Binds the listen address (Error naming it when that fails), then serves on a thread of its own.
  void start();
  // Ends the thread and closes every connection; safe to call twice, or before start().
  void stop();
  int port() const { return port_; }
  const HttpStats& stats() const;

 private:
  struct Loop;
  std::string host_;
  int port_ = 0;
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
};

// The reason phrase of the statuses the server sends ("Not Found").
const char* reason_phrase(int status);

}  // namespace pmukit::exporter
