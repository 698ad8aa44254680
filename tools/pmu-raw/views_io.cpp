// pmu-raw --io: pcm-iio's view, a row per PCIe device with its inbound and outbound bandwidth.
#include <cerrno>

#include <fmt/format.h>

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

std::string io_table(double t_s, const std::vector<counting::DeviceIo>& devices) {
  auto s = fmt::format("{:.3f} s: PCIe bandwidth per device, MB/s\n{:<14}{:<8}{:<28}{:>{}}{:>{}}{:>{}}{:>{}}  {}\n",
                       t_s, "Device", "Socket", "Stack/part", "IB read", kCell, "IB write", kCell, "OB read", kCell,
                       "OB write", kCell, "Name");
  for (const auto& d : devices) {
    s += fmt::format("{:<14}{:<8}{:<28}{:>{}}{:>{}}{:>{}}{:>{}}  {}", d.bdf, socket_text(d), d.where,
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

std::string io_json(double t_s, const std::vector<counting::DeviceIo>& devices) {
  Text out;
  for (const auto& d : devices) {
    JsonLine j(out);
    json_number(j.key("interval"), t_s);
    j.string("device", d.bdf);
    j.string("name", d.name);
    if (d.socket >= 0) j.integer("socket", static_cast<std::uint64_t>(d.socket));
    j.string("stack", d.where);
    if (!d.reason.empty()) {
      j.string("reason", d.reason);
      continue;
    }
    j.number("ib_read", d.inbound_read);
    j.number("ib_write", d.inbound_write);
    if (d.has_outbound_read) j.number("ob_read", d.outbound_read);
    j.number("ob_write", d.outbound_write);
    j.string("unit", "MB/s");
  }
  return fmt::to_string(out);
}

class IoPrinter : public counting::Sink {
 public:
  IoPrinter(counting::IoViewMetrics names, const ReportOptions& report, bool refresh)
      : names_(std::move(names)), report_(report), refresh_(refresh) {}
  void interval(std::uint64_t since_start_ns, std::uint64_t, const std::vector<Row>&,
                const std::vector<MetricRow>& metrics) override {
    const double t = static_cast<double>(since_start_ns) / 1e9;
    const auto devices = counting::io_view(names_, metrics);
    std::string text = report_.format == Format::Json  ? io_json(t, devices)
                       : report_.format == Format::Csv ? io_csv(t, devices, report_.separator, !header_done_)
                                                       : io_table(t, devices) + (refresh_ ? "" : "\n");
    header_done_ = true;
    write_view(report_.out, text, refresh_);
  }

 private:
  counting::IoViewMetrics names_;
  const ReportOptions& report_;
  bool refresh_;
  bool header_done_ = false;
};

}  // namespace

int run_io_view(RawOptions& o) {
  return run_view(o, "--io", [&](Machine& machine, const discovery::Inventory& inventory) -> ViewPlan {
    const auto names = counting::io_view_metrics(machine, inventory);
    if (!names) throw UsageError("--io: the IIO bandwidth metrics apply to no PMU here (see --list-metrics)");
    return {names->names(), Aggregation::PerDevice, [names = *names](const ReportOptions& report, bool refresh) {
              return std::unique_ptr<counting::Sink>(new IoPrinter(names, report, refresh));
            }};
  });
}

}  // namespace pmukit::tools
