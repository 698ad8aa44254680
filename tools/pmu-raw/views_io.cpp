// pmu-raw --io: pcm-iio's view, a row per PCIe device with its inbound and outbound bandwidth.
#include <algorithm>
#include <cerrno>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/util/error.h"
#include "report_text.h"
#include "views.h"

namespace pmukit::tools {

namespace {

constexpr int kCell = 12;

std::string socket_text(const counting::DeviceIo& d) {
  return d.socket < 0 ? "-" : fmt::format("S{}", d.socket);
}

// A cell of the table: MB/s, or "-" where nothing was counted.
std::string cell(const counting::DeviceIo& d, double v, bool counted = true) {
  return d.reason.empty() && counted ? fmt::format("{:.2f}", v) : "-";
}

// The Stack/part column as wide as its longest entry ("uncore_iio_7 part 2, shared with 4 other devices").
int where_width(const std::vector<counting::DeviceIo>& devices) {
  std::size_t w = 26;
  for (const auto& d : devices) w = std::max(w, d.where.size());
  return static_cast<int>(w + 2);
}

std::string io_table(double t_s, const std::vector<counting::DeviceIo>& devices) {
  const int where = where_width(devices);
  auto s = fmt::format("{:.3f} s: PCIe bandwidth per device, MB/s\n{:<14}{:<8}{:<{}}{:>{}}{:>{}}{:>{}}{:>{}}  {}\n",
                       t_s, "Device", "Socket", "Stack/part", where, "IB read", kCell, "IB write", kCell, "OB read",
                       kCell, "OB write", kCell, "Name");
  for (const auto& d : devices) {
    s += fmt::format("{:<14}{:<8}{:<{}}{:>{}}{:>{}}{:>{}}{:>{}}  {}", d.bdf, socket_text(d), d.where, where,
                     cell(d, d.inbound_read), kCell, cell(d, d.inbound_write), kCell,
                     cell(d, d.outbound_read, d.has_outbound_read), kCell, cell(d, d.outbound_write), kCell, d.name);
    s += d.reason.empty() ? "\n" : fmt::format(" (not counted: {})\n", d.reason);
  }
  return s;
}

// A CSV field: quoted (its quotes doubled) where it holds the separator or a quote.
std::string csv_field(const std::string& v, const std::string& sep) {
  if (v.find(sep) == std::string::npos && v.find('"') == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string io_csv(double t_s, const std::vector<counting::DeviceIo>& devices, const std::string& sep, bool header) {
  std::string s;
  if (header)
    s = fmt::format("time{0}device{0}socket{0}stack{0}IB read{0}IB write{0}OB read{0}OB write{0}name{0}reason\n", sep);
  for (const auto& d : devices) {
    auto num = [&](double v, bool counted = true) { return cell(d, v, counted) == "-" ? "" : cell(d, v, counted); };
    s += fmt::format("{1:.3f}{0}{2}{0}{3}{0}{4}{0}{5}{0}{6}{0}{7}{0}{8}{0}{9}{0}{10}\n", sep, t_s, d.bdf,
                     d.socket < 0 ? "" : fmt::format("{}", d.socket), csv_field(d.where, sep), num(d.inbound_read),
                     num(d.inbound_write), num(d.outbound_read, d.has_outbound_read), num(d.outbound_write),
                     csv_field(d.name, sep), csv_field(d.reason, sep));
  }
  return s;
}

// A JSON string (its quotes, escaped as JSON needs).
std::string json_text(std::string_view v) {
  Text t;
  json_string(t, v);
  return fmt::to_string(t);
}

// A JSON figure: MB/s with two decimals, or null where it was not counted.
std::string json_mb(double v, bool counted) {
  return counted ? fmt::format("{:.2f}", v) : "null";
}

struct IoSums {
  double ib_read = 0, ib_write = 0, ob_read = 0, ob_write = 0;
  bool ob_read_known = true;
  void add(const counting::DeviceIo& d) {
    if (!d.reason.empty()) return;
    ib_read += d.inbound_read, ib_write += d.inbound_write, ob_write += d.outbound_write;
    ob_read += d.outbound_read, ob_read_known = ob_read_known && d.has_outbound_read;
  }
  std::string json() const {
    return fmt::format(R"("ib_read" : {:.2f}, "ib_write" : {:.2f}, "ob_read" : {}, "ob_write" : {:.2f}, )"
                       R"("unit" : "MB/s"}})"
                       "\n",
                       ib_read, ib_write, json_mb(ob_read, ob_read_known), ob_write);
  }
};

std::string device_json(const counting::DeviceIo& d) {
  auto s = fmt::format(R"({{"device" : {}, "name" : {}, "stack" : {})", json_text(d.bdf), json_text(d.name),
                       json_text(d.where));
  if (!d.reason.empty()) return s + fmt::format(R"(, "reason" : {}}})", json_text(d.reason));
  return s + fmt::format(R"(, "ib_read" : {:.2f}, "ib_write" : {:.2f}, "ob_read" : {}, "ob_write" : {:.2f}}})",
                         d.inbound_read, d.inbound_write, json_mb(d.outbound_read, d.has_outbound_read),
                         d.outbound_write);
}

// -j: as --memory's, a JSON line per socket (its devices in an array, in BDF order, then their sums)
// and one for the system; a device not counted has its reason in place of figures.
std::string io_json(double t_s, const std::vector<counting::DeviceIo>& devices) {
  std::vector<int> sockets;
  for (const auto& d : devices)
    if (std::find(sockets.begin(), sockets.end(), d.socket) == sockets.end()) sockets.push_back(d.socket);
  std::sort(sockets.begin(), sockets.end());
  std::string s;
  IoSums system;
  for (int socket : sockets) {
    s += fmt::format(R"({{"interval" : {:.3f}, "socket" : {}, "devices" : [)", t_s,
                     socket < 0 ? std::string("null") : fmt::format("\"S{}\"", socket));
    IoSums sums;
    bool first = true;
    for (const auto& d : devices) {
      if (d.socket != socket) continue;
      s += (first ? "" : ", ") + device_json(d);
      first = false;
      sums.add(d), system.add(d);
    }
    s += "], " + sums.json();
  }
  return s + fmt::format(R"({{"interval" : {:.3f}, "socket" : "system", )", t_s) + system.json();
}

class IoPrinter : public ViewPrinter {
 public:
  IoPrinter(counting::IoViewMetrics names, const ReportOptions& report, bool refresh)
      : ViewPrinter(report, refresh), names_(std::move(names)) {}

 private:
  std::string text(double t_s, const std::vector<Row>&, const std::vector<MetricRow>& metrics,
                   const ReportOptions& report, bool header) override {
    const auto devices = counting::io_view(names_, metrics);
    return report.format == Format::Json  ? io_json(t_s, devices)
           : report.format == Format::Csv ? io_csv(t_s, devices, report.separator, header)
                                          : io_table(t_s, devices);
  }

  counting::IoViewMetrics names_;
};

// Why there is no --io here: no Intel IIO PMU; and what counts PCIe bandwidth instead, if anything.
std::string no_io_view(Machine& machine, const discovery::Inventory& inventory) {
  const auto instead = counting::root_port_io_metrics(machine, inventory);
  const std::string head = "--io: pcm-iio's per-device view counts on Intel IIO PMUs, and this machine has none";
  if (instead.empty())
    return fmt::format("{} (its uncore PMUs: {}; no PCIe bandwidth metric applies to them)", head,
                       fmt::join(counting::pmu_families(machine, inventory), ", "));
  return fmt::format("{}; its PCIe bandwidth per root port: pmu-raw -M {} --per-box --metric-only -I 1000", head,
                     fmt::join(instead, ","));
}

}  // namespace

int run_io_view(RawOptions& o) {
  return run_view(o, "--io", [&](Machine& machine, const discovery::Inventory& inventory) -> ViewPlan {
    const auto names = counting::io_view_metrics(machine, inventory);
    if (!names) throw UsageError(no_io_view(machine, inventory));
    return {names->names(), Aggregation::PerDevice, [names = *names](const ReportOptions& report, bool refresh) {
              return std::unique_ptr<counting::Sink>(new IoPrinter(names, report, refresh));
            }};
  });
}

}  // namespace pmukit::tools
