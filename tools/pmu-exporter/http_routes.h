// pmu-exporter -- the HTTP side: /metrics, / and /healthz, served from the latest snapshot by the
// server of http_server.h (one poll loop on a thread of its own, with its limits).
#pragma once

#include <string>
#include <vector>

#include "config.h"
#include "http_server.h"
#include "snapshot.h"

namespace pmukit::exporter {

// What / and /healthz tell about the run besides the snapshot.
struct RunInfo {
  std::string clock;                // "real time", "pmu-sim virtual time"
  std::vector<std::string> notes;   // the backend choice per PMU, with its reason
  std::vector<std::string> events;  // as configured
  std::vector<std::string> metrics;
  double read_interval_s = 0;
};

class HttpServer {
 public:
  HttpServer(const Config& config, const SnapshotBoard& board, RunInfo info);
  ~HttpServer();
  // Binds the listen address (Error naming it when that fails), then serves on a thread of its own.
  void start() { service_.start(); }
  void stop() { service_.stop(); }
  int port() const { return service_.port(); }

 private:
  HttpResponse route(const HttpRequest& req) const;
  HttpResponse metrics(const HttpRequest& req) const;
  HttpResponse health() const;
  HttpResponse index() const;
  const Config& config_;
  const SnapshotBoard& board_;
  RunInfo info_;
  HttpService service_;
};

}  // namespace pmukit::exporter
