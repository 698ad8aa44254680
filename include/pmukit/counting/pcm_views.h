// pmukit -- the views Intel PCM's tools print, from metric rows: pcm-memory's DRAM bandwidth per
// socket and memory channel. Which metrics give it is data: the first set of metric names (in the
// embedded catalog) that all apply to PMUs of the machine.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/machine.h"
#include "pmukit/counting/backend.h"
#include "pmukit/counting/metric_runner.h"
#include "pmukit/discovery/inventory.h"

namespace pmukit::counting {

// The metrics of the memory view: per channel read and write, per socket read and write, and the
// socket total (empty: read plus write).
struct MemoryViewMetrics {
  std::string channel_read, channel_write, socket_read, socket_write, socket_total;
  std::vector<std::string> names() const;
};

// The first known set whose metrics all apply to a PMU here; nullopt when none does.
std::optional<MemoryViewMetrics> memory_view_metrics(const Machine& machine, const discovery::Inventory& inventory);

// Bandwidths in MB/s (1e6 bytes a second, as PCM prints them).
struct ChannelMemory {
  std::string pmu;  // "uncore_imc_3"
  double read = 0, write = 0;
};
struct SocketMemory {
  int socket = 0;
  std::vector<ChannelMemory> channels;  // in PMU number order: Ch0, Ch1, ...
  double read = 0, write = 0, total = 0;
};
struct MemoryView {
  std::vector<SocketMemory> sockets;  // by socket number
  double read = 0, write = 0, total = 0;
};

// One interval's view from its metric rows (evaluated per socket). A channel is shown on the sockets
// where `units` (the interval's rows of counts) has a unit of its PMU: a PMU numbered across sockets
// (amd_umc_<n>) is on one; empty `units`: every row is shown.
MemoryView memory_view(const MemoryViewMetrics& names, const std::vector<MetricRow>& rows,
                       const std::vector<Row>& units = {});

// pcm-iio's view: PCIe bandwidth per device, inbound (device DMA) and outbound (CPU MMIO) reads and
// writes, counted per device (IioScope::Device). The outbound read metric is the one that applies to
// the machine's IIO kind (empty: none does, as on Skylake-SP).
struct IoViewMetrics {
  std::string inbound_read, inbound_write, outbound_read, outbound_write;
  std::vector<std::string> names() const;
};

// nullopt when the IIO metrics apply to no PMU here.
std::optional<IoViewMetrics> io_view_metrics(const Machine& machine, const discovery::Inventory& inventory);

// One device's row, MB/s; `reason` set: not counted (no part selects it), its figures 0.
struct DeviceIo {
  std::string bdf;   // "0000:18:00.0"
  std::string name;  // lspci's class and name
  int socket = -1;
  std::string where;  // "uncore_iio_1 part 0" (and whom it shares the part with)
  double inbound_read = 0, inbound_write = 0, outbound_read = 0, outbound_write = 0;
  bool has_outbound_read = false;
  std::string reason;
};

// One interval's rows, in the order the devices were listed (BDF order).
std::vector<DeviceIo> io_view(const IoViewMetrics& names, const std::vector<MetricRow>& rows);

}  // namespace pmukit::counting
