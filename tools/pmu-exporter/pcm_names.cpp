// pmu-exporter -- the PCM pcm-sensor-server names (see pcm_names.h).
#include "pcm_names.h"

#include <map>

#include <fmt/format.h>

namespace pmukit::exporter {

namespace {

struct PcmName {
  const char* family;  // pmukit's platform-neutral gauge
  const char* pcm;     // pcm-sensor-server's name
  const char* help;
};

constexpr PcmName kNames[] = {
    {"pmukit_dram_read_bytes_per_second", "DRAM_Reads", "Bytes read from DRAM since pmu-exporter started (dram_read)"},
    {"pmukit_dram_write_bytes_per_second", "DRAM_Writes",
     "Bytes written to DRAM since pmu-exporter started (dram_write)"},
};

void family(std::string& out, const std::string& name, const std::string& help, const std::map<int, double>& sockets) {
  out += fmt::format("# HELP {} {}\n", name, help);
  double system = 0;
  for (const auto& [socket, bytes] : sockets) {
    out += fmt::format("{}{{socket=\"{}\",source=\"uncore\"}} {:.0f}\n", name, socket, bytes);
    system += bytes;
  }
  out += fmt::format("{}{{aggregate=\"system\",source=\"uncore\"}} {:.0f}\n", name, system);
}

}  // namespace

std::string render_pcm(const counting::SeriesSnapshot& s) {
  const double seconds = static_cast<double>(s.counted_ns) / 1e9;
  std::string out = "# pmu-exporter (pmukit): Intel PCM pcm-sensor-server names\n";
  std::map<int, double> any;  // the sockets DRAM figures were given for
  for (const auto& n : kNames) {
    std::map<int, double> sockets;
    for (const auto& g : s.since_start)
      if (g.family == n.family && g.socket >= 0) sockets[g.socket] += g.value * seconds;
    if (sockets.empty()) continue;
    family(out, n.pcm, n.help, sockets);
    for (const auto& [socket, bytes] : sockets) any[socket] = 0;
  }
  if (any.empty()) return out;
  family(out, "Persistent_Memory_Reads", "pmukit counts no Intel Optane persistent memory: 0", any);
  family(out, "Persistent_Memory_Writes", "pmukit counts no Intel Optane persistent memory: 0", any);
  return out;
}

}  // namespace pmukit::exporter
