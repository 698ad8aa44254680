// pmu-exporter -- the HTTP side (cpp-httplib): /metrics, / and /healthz, served from the latest
// snapshot by the server's own threads.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "snapshot.h"

namespace httplib {
class Server;
}

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
  void add_routes();
  const Config& config_;
  const SnapshotBoard& board_;
  RunInfo info_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> thread_done_{false};
  int port_ = 0;
};

}  // namespace pmukit::exporter
