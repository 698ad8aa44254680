// pmu-exporter -- the HTTP side (libevent's evhttp): /metrics, / and /healthz, served from the
// latest snapshot by one event loop on a thread of its own.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "snapshot.h"

struct evhttp_request;

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
  void start();
  void stop();
  int port() const { return port_; }

 private:
  struct Loop;  // the event base, the evhttp and the stop event (libevent's types stay in the .cpp)
  void add_routes();
  void metrics(evhttp_request* req) const;
  void health(evhttp_request* req) const;
  void index(evhttp_request* req) const;
  const Config& config_;
  const SnapshotBoard& board_;
  RunInfo info_;
  std::unique_ptr<Loop> loop_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace pmukit::exporter
