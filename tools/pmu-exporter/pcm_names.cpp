// pmu-exporter -- the PCM pcm-sensor-server names (see pcm_names.h).
#include "pcm_names.h"

#include <map>
#include <optional>

#include <fmt/format.h>

namespace pmukit::exporter {

namespace {

// Where pcm-sensor-server prints a family, which sets the order of its labels: in a socket's
// uncore counters ({socket,source}), or in the system's ({aggregate="system",source,socket}).
enum class Place { Socket, System };

struct PcmName {
  const char* family;  // pmukit's platform-neutral gauge
  const char* pcm;     // pcm-sensor-server's name
  const char* help;
  Place place;
};

constexpr PcmName kNames[] = {
    {"pmukit_dram_read_bytes_per_second", "DRAM_Reads", "Bytes read from DRAM since pmu-exporter started (dram_read)",
     Place::Socket},
    {"pmukit_dram_write_bytes_per_second", "DRAM_Writes",
     "Bytes written to DRAM since pmu-exporter started (dram_write)", Place::Socket},
    {"pmukit_pcie_to_device_bytes_per_second", "PCIe_Read_Bytes",
     "Bytes PCIe devices read from memory since pmu-exporter started (pcie_to_device)", Place::System},
    {"pmukit_pcie_from_device_bytes_per_second", "PCIe_Write_Bytes",
     "Bytes PCIe devices wrote to memory since pmu-exporter started (pcie_from_device)", Place::System},
};

void family(std::string& out, const std::string& name, const std::string& help, const std::map<int, double>& sockets,
            Place place) {
  out += fmt::format("# HELP {} {}\n", name, help);
  double system = 0;
  for (const auto& [socket, bytes] : sockets) {
    if (place == Place::Socket)
      out += fmt::format("{}{{socket=\"{}\",source=\"uncore\"}} {:.0f}\n", name, socket, bytes);
    else
      out += fmt::format("{}{{aggregate=\"system\",source=\"uncore\",socket=\"{}\"}} {:.0f}\n", name, socket, bytes);
    system += bytes;
  }
  out += fmt::format("{}{{aggregate=\"system\",source=\"uncore\"}} {:.0f}\n", name, system);
}

// The link number of a UPI link PMU (uncore_upi_2: 2).
std::optional<unsigned> upi_link(const std::string& pmu) {
  constexpr std::string_view prefix = "uncore_upi_";
  if (!pmu.starts_with(prefix) || pmu.size() == prefix.size()) return std::nullopt;
  unsigned n = 0;
  for (char c : pmu.substr(prefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  return n;
}

// Incoming_Data_Traffic_On_Link_N per socket, from chip_link_rx on each UPI link PMU: PCM prints it
// only per socket, in the system's counters.
void upi_links(std::string& out, const counting::SeriesSnapshot& s, double seconds) {
  std::map<unsigned, std::map<int, double>> links;
  for (const auto& g : s.since_start)
    if (g.family == "pmukit_chip_link_rx_bytes_per_second" && g.socket >= 0)
      if (auto link = upi_link(g.pmu)) links[*link][g.socket] += g.value * seconds;
  for (const auto& [link, sockets] : links) {
    const std::string name = fmt::format("Incoming_Data_Traffic_On_Link_{}", link);
    out += fmt::format("# HELP {} Data bytes UPI link {} received since pmu-exporter started (chip_link_rx)\n", name,
                       link);
    for (const auto& [socket, bytes] : sockets)
      out += fmt::format("{}{{aggregate=\"system\",source=\"uncore\",socket=\"{}\"}} {:.0f}\n", name, socket, bytes);
  }
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
    family(out, n.pcm, n.help, sockets, n.place);
    if (n.place == Place::Socket)
      for (const auto& [socket, bytes] : sockets) any[socket] = 0;
  }
  upi_links(out, s, seconds);
  if (any.empty()) return out;
  family(out, "Persistent_Memory_Reads", "pmukit counts no Intel Optane persistent memory: 0", any, Place::Socket);
  family(out, "Persistent_Memory_Writes", "pmukit counts no Intel Optane persistent memory: 0", any, Place::Socket);
  return out;
}

}  // namespace pmukit::exporter
