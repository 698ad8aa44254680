// pmu-exporter -- its one configuration file: what to count and export, how, and where to listen.
//
// JSON (docs/man/pmu-exporter.8.scd shows a whole file):
//   {"listen": "127.0.0.1:9739", "read_interval_ms": 1000, "metric_window_s": 10,
//    "granularity": "per-box", "backend": "auto",
//    "events": ["uncore_imc/cas_count_read/",
//               {"event": "uncore_iio_1/event=0x83,umask=0x04,ch_mask=0x1,fc_mask=0x7/",
//                "name": "pcie_read", "bytes_per_count": 4, "device": "0000:16:00.0"}],
//    "metrics": ["spr_dram_read_bw"], "metric_params": {"CMN_FREQ_GHZ": 2.0}, "event_files": [],
//    "max_connections": 64, "request_timeout_ms": 10000, "idle_timeout_ms": 60000}
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/counting/backend_choice.h"
#include "pmukit/counting/series.h"

namespace pmukit::exporter {

inline constexpr const char* kVersion = "0.1.0";  // pmu-exporter --version, pmukit_build_info

// How the counts of an event are labelled, and one configured event (counting/series.h).
using counting::Granularity;
using EventConfig = counting::SeriesEvent;

// The HTTP server's limits (connection_guard.h): open connections, the time a request may take from
// its first byte (and its response to be taken), the time a connection may wait for one.
struct HttpLimits {
  std::size_t max_connections = 64;
  std::uint64_t request_timeout_ms = 10'000;
  std::uint64_t idle_timeout_ms = 60'000;
};

// The names /metrics publishes: pmukit's (pmukit_*), or those of Intel PCM's pcm-sensor-server
// for the quantities pmukit counts too (pcm_names.h), so PCM's dashboards carry over.
enum class Naming { Pmukit, Pcm };
inline constexpr int kPort = 9739;     // pmukit's
inline constexpr int kPcmPort = 9738;  // pcm-sensor-server's default port

struct Config {
  std::string listen_host = "127.0.0.1";  // localhost only unless the file says otherwise
  int listen_port = kPort;                // kPcmPort with the PCM names, unless "listen" says
  bool listen_given = false;
  Naming naming = Naming::Pmukit;
  std::uint64_t read_interval_ms = 1000;  // how often the counters are read
  std::uint64_t metric_window_s = 10;     // metrics are computed over this much counting time
  Granularity granularity = Granularity::PerBox;
  bool timestamps = false;  // each sample carries the time it was counted
  counting::BackendMode backend = counting::BackendMode::Auto;
  bool force = false;
  std::vector<EventConfig> events;
  std::vector<std::string> metrics;  // NAME or NAME/TERMS/, as pmu-raw -M
  std::map<std::string, double> metric_params;
  std::vector<std::string> event_files;
  HttpLimits http;
};

// Reads and checks `path`. Throws Error naming the file and the member for anything it cannot use
// (unknown members too: a misspelt option must not be silently ignored).
Config load_config(const std::filesystem::path& path);

// "pmukit" or "pcm" (the naming member, --naming); nullopt otherwise.
std::optional<Naming> naming(const std::string& text);
// Sets the naming; the port becomes PCM's 9738 with the PCM names unless a listen address was given.
void set_naming(Config& config, Naming n);

// "HOST:PORT", "[V6]:PORT" or ":PORT" -> host and port; UsageError/Error with `what` otherwise.
void parse_listen(const std::string& text, const std::string& what, Config& config);

using counting::granularity_name;

}  // namespace pmukit::exporter
