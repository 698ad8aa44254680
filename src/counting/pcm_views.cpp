// pmukit -- pcm-memory's view from metric rows (see pcm_views.h).
#include "pmukit/counting/pcm_views.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string_view>

#include "pmukit/counting/counting.h"
#include "pmukit/counting/event_names.h"
#include "pmukit/metrics/catalog.h"

namespace pmukit::counting {

namespace {

// The metric sets pcm-memory's figures come from, by name, in the order tried: Intel IMC channels
// (every generation's named CAS events), AMD UMC channels (Zen 4, Zen 5); then what machines without
// channel read and write counters have: Zen 3's DF (a channel's reads and writes together), Grace's
// SCF and Tegra410's UCF (a socket's reads and writes, no channels).
const std::array<MemoryViewMetrics, 5> kMemorySets{{
    {"imc_read_bw", "imc_write_bw", "dram_read_bw", "dram_write_bw", "dram_bw", false, ""},
    {"amd_umc_read_bw", "amd_umc_write_bw", "amd_dram_read_bw", "amd_dram_write_bw", "", false, ""},
    {"", "", "", "", "amd_zen3_df_dram_bw", true,
     "Read, Write: Zen 3's Data Fabric counts a channel's DRAM requests with data, reads and writes together"},
    {"", "", "scf_local_mem_read_bw", "scf_local_mem_write_bw", "", false,
     "channels: Grace's SCF PMU counts a socket's memory (CMEM) as a whole"},
    {"", "", "t410_ucf_mem_read_bw", "t410_ucf_mem_write_bw", "", false,
     "channels: Tegra410's UCF PMU counts a socket's memory requests (local and remote memory) as a whole"},
}};

// PCIe bandwidth per root port or root complex where there is no Intel IIO, in the order tried.
const std::vector<std::vector<const char*>> kRootPortSets{
    {"t410_pcie_read_bw", "t410_pcie_write_bw", "t410_pcie_tgt_read_bw", "t410_pcie_tgt_write_bw"},
    {"dwc_pcie_rx_bw", "dwc_pcie_tx_bw"},
};

// The IIO metrics pcm-iio's columns come from; the outbound read of each IIO kind's codes, in turn.
constexpr const char* kIoMetrics[] = {"iio_inbound_read_bw", "iio_inbound_write_bw", "iio_outbound_write_bw"};
// SPR/EMR and GNR/SRF count outbound reads with other events on the same IIO PMU kind: each metric
// with the event of perf's list for the CPU model (events::builtin_uncore_events) that marks its
// generation, "" for none. SPR's completions event (DATA_REQ_OF_CPU.CMPD) is in SPR's and EMR's
// perfmon lists only; GNR's codes are pcm-iio's OB read on Skylake-SP and Cascade Lake too.
struct OutboundRead {
  const char* metric;
  const char* marker;
};
constexpr OutboundRead kOutboundReads[] = {{"spr_iio_outbound_read_bw", "unc_iio_data_req_of_cpu.cmpd.part0"},
                                           {"gnr_iio_outbound_read_bw", ""}};

bool applies_here(const metrics::Catalog& catalog, const std::string& name, const std::vector<std::string>& pmus,
                  const PmuKinds& kinds) {
  // Every variant: a metric with a formula per generation (dram_read_bw on GNR's sub-channels).
  for (const auto* m : catalog.variants(name))
    if (std::any_of(pmus.begin(), pmus.end(),
                    [&](const std::string& p) { return m->applies_to(p, kind_of(kinds, p)); }))
      return true;
  return false;
}

// MB/s from a metric's value in its unit.
double megabytes(const MetricRow& r) {
  if (!r.valid) return 0;
  if (r.unit == "GB/s") return r.value * 1e3;
  if (r.unit == "KB/s") return r.value / 1e3;
  if (r.unit == "B/s") return r.value / 1e6;
  return r.value;  // MB/s
}

// The number a PMU name ends with ("uncore_imc_12": 12), for the channels' order.
long pmu_number(const std::string& pmu) {
  auto i = pmu.find_last_not_of("0123456789");
  return i + 1 < pmu.size() ? std::stol(pmu.substr(i + 1)) : -1;
}

bool is(const MetricRow& r, const std::string& name) {
  return r.metric && !name.empty() && r.metric->name() == name;
}

// What a breakdown row's name says after its metric: "uncore_iio_1 part 0".
std::string label_of(const std::string& name) {
  const auto open = name.find(" (");
  if (open == std::string::npos || name.back() != ')') return "";
  return name.substr(open + 2, name.size() - open - 3);
}

// A row of one of a summed variable's events ("amd_zen3_df_dram_bw (amd_df/event=0x47,umask=0x38)").
bool is_member(const MetricRow& r) {
  return label_of(r.name).find('/') != std::string::npos;
}

}  // namespace

std::vector<std::string> IoViewMetrics::names() const {
  std::vector<std::string> n{inbound_read, inbound_write, outbound_write};
  if (!outbound_read.empty()) n.push_back(outbound_read);
  return n;
}

std::optional<IoViewMetrics> io_view_metrics(const Machine& machine, const discovery::Inventory& inventory) {
  const auto pmus = pmu_names(machine, inventory);
  const auto kinds = pmu_kinds_here(inventory);
  const auto catalog = metrics::Catalog::embedded();
  for (const char* n : kIoMetrics)
    if (!applies_here(catalog, n, pmus, kinds)) return std::nullopt;
  IoViewMetrics m{kIoMetrics[0], kIoMetrics[1], "", kIoMetrics[2]};
  const auto events = event_names(machine, inventory);
  for (const auto& [metric, marker] : kOutboundReads)
    if (m.outbound_read.empty() && applies_here(catalog, metric, pmus, kinds) &&
        (!*marker || std::binary_search(events.begin(), events.end(), std::string(marker))))
      m.outbound_read = metric;
  return m;
}

std::vector<DeviceIo> io_view(const IoViewMetrics& names, const std::vector<MetricRow>& rows) {
  std::vector<DeviceIo> devices;
  std::map<std::string, std::size_t> at;
  for (const auto& r : rows) {
    if (r.group.empty() || !r.metric) continue;
    auto [it, added] = at.try_emplace(r.group, devices.size());
    if (added) {
      devices.emplace_back();
      devices.back().bdf = r.group, devices.back().name = r.detail, devices.back().reason = r.reason;
    }
    auto& d = devices[it->second];
    if (r.socket >= 0) d.socket = r.socket;
    if (d.where.empty()) d.where = label_of(r.name);
    const double v = megabytes(r);
    if (is(r, names.inbound_read)) d.inbound_read += v;
    if (is(r, names.inbound_write)) d.inbound_write += v;
    if (is(r, names.outbound_write)) d.outbound_write += v;
    if (is(r, names.outbound_read)) d.outbound_read += v, d.has_outbound_read = true;
  }
  return devices;
}

std::vector<std::string> MemoryViewMetrics::names() const {
  std::vector<std::string> n;
  for (const auto* m : {&channel_read, &channel_write, &socket_read, &socket_write, &socket_total})
    if (!m->empty()) n.push_back(*m);
  return n;
}

// A name without its trailing number ("_3", or a hex "_b000" with a digit in it); false: it has none.
bool drop_number(std::string& name) {
  const auto i = name.find_last_not_of("0123456789abcdef");
  if (i == std::string::npos || i + 1 == name.size() || name[i] != '_' ||
      name.find_first_of("0123456789", i) == std::string::npos)
    return false;
  name.erase(i);
  return true;
}

std::vector<std::string> pmu_families(const Machine& machine, const discovery::Inventory& inventory) {
  std::set<std::string> families;
  for (auto name : pmu_names(machine, inventory)) {
    while (drop_number(name)) {
    }
    families.insert(name);
  }
  return {families.begin(), families.end()};
}

std::vector<std::string> root_port_io_metrics(const Machine& machine, const discovery::Inventory& inventory) {
  const auto pmus = pmu_names(machine, inventory);
  const auto kinds = pmu_kinds_here(inventory);
  const auto catalog = metrics::Catalog::embedded();
  for (const auto& set : kRootPortSets)
    if (std::all_of(set.begin(), set.end(), [&](const char* n) { return applies_here(catalog, n, pmus, kinds); }))
      return {set.begin(), set.end()};
  return {};
}

std::optional<MemoryViewMetrics> memory_view_metrics(const Machine& machine, const discovery::Inventory& inventory) {
  const auto pmus = pmu_names(machine, inventory);
  const auto kinds = pmu_kinds_here(inventory);
  const auto catalog = metrics::Catalog::embedded();
  for (const auto& set : kMemorySets) {
    const auto names = set.names();
    if (std::all_of(names.begin(), names.end(),
                    [&](const std::string& n) { return applies_here(catalog, n, pmus, kinds); }))
      return set;
  }
  return std::nullopt;
}

MemoryView memory_view(const MemoryViewMetrics& names, const std::vector<MetricRow>& rows,
                       const std::vector<Row>& units) {
  std::set<std::pair<int, std::string_view>> placed;  // (socket, PMU) of every unit counted
  for (const auto& u : units) placed.emplace(u.socket, u.pmu);
  std::map<int, SocketMemory> sockets;
  std::map<int, std::map<long, ChannelMemory>> channels;
  bool have_total = false;
  for (const auto& r : rows) {
    auto& s = sockets[r.socket];
    s.socket = r.socket;
    if (is_member(r)) {
      if (!names.channels_of_total || !is(r, names.socket_total)) continue;
      auto& on_socket = channels[r.socket];  // the events in their order: Ch0, Ch1, ...
      auto& c = on_socket[static_cast<long>(on_socket.size())];
      c.pmu = r.pmu, c.total = megabytes(r);
    } else if (is(r, names.channel_read) || is(r, names.channel_write)) {
      if (!units.empty() && !placed.count({r.socket, std::string_view(r.pmu)})) continue;
      auto& c = channels[r.socket][pmu_number(r.pmu)];
      c.pmu = r.pmu;
      (is(r, names.channel_read) ? c.read : c.write) += megabytes(r);
      c.total = c.read + c.write;
    } else if (is(r, names.socket_read)) {
      s.read += megabytes(r);
    } else if (is(r, names.socket_write)) {
      s.write += megabytes(r);
    } else if (is(r, names.socket_total)) {
      s.total += megabytes(r);
      have_total = true;
    }
  }
  MemoryView view;
  view.split = names.split();
  for (auto& [n, s] : sockets) {
    for (auto& [number, c] : channels[n]) s.channels.push_back(c);
    if (!have_total) s.total = s.read + s.write;
    view.read += s.read, view.write += s.write, view.total += s.total;
    view.sockets.push_back(std::move(s));
  }
  return view;
}

}  // namespace pmukit::counting
