// pmu-exporter -- /metrics under the names of Intel PCM's pcm-sensor-server (naming "pcm"), for
// the quantities pmukit counts too, so dashboards built on PCM's exporter carry over.
//
// pcm-sensor-server (github.com/intel/pcm, src/pcm-sensor-server.cpp, PrometheusPrinter) publishes
// each counter under its display name with spaces and '-' made '_', the value absolute since it
// started, labels from where it sits: per socket {socket="S",source="uncore"}, for the whole
// system {aggregate="system",source="uncore"}; untyped (no TYPE lines), text format 0.0.4, port 9738.
// PCM's generated Grafana dashboard (src/dashboard.cpp) takes rate() of them over [4s].
//
// Covered, from the metrics asked for by their platform-neutral names (the fleet configuration):
//   DRAM_Reads, DRAM_Writes        bytes since start: dram_read, dram_write (per socket, system)
//   Persistent_Memory_Reads/Writes 0 (pmukit counts no Intel Optane persistent memory; PCM's
//                                  "Memory Bandwidth" panel adds them to the DRAM figures)
//   PCIe_Read_Bytes, PCIe_Write_Bytes  bytes since start PCIe devices read from / wrote to memory:
//                                  pcie_to_device, pcie_from_device (on Intel the IIO stacks'
//                                  inbound reads and writes; PCM's collector counts the same
//                                  traffic at the CHA), in the system's counters
//                                  {aggregate="system",source="uncore",socket="S"} and summed
//                                  {aggregate="system",source="uncore"}
//   Incoming_Data_Traffic_On_Link_N  bytes since start UPI link N (uncore_upi_N) received:
//                                  chip_link_rx (RxL data flits x 64/9, PCM's own formula),
//                                  {aggregate="system",source="uncore",socket="S"}
// Not covered: per-channel figures (pcm-sensor-server has none; pcm-memory's are a terminal view),
// Outgoing_Data_And_Non_Data_Traffic_On_Link_N (PCM's is data and non-data flits scaled by the
// link's speed; chip_link_tx is data flits only), the link utilizations, and the core counters.
#pragma once

#include <string>

#include "pmukit/counting/series.h"

namespace pmukit::exporter {

inline constexpr const char* kPcmContentType = "text/plain; version=0.0.4; charset=utf-8";

// The snapshot's PCM-named series (SeriesSnapshot::since_start times the counting time).
std::string render_pcm(const counting::SeriesSnapshot& s);

}  // namespace pmukit::exporter
