// pmu-raw -- PCM's views (see views.h): the library counts and gives the view, this prints it.
#include "views.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/counting/workload.h"
#include "pmukit/families/registry.h"
#include "pmukit/util/error.h"

namespace pmukit::tools {

namespace {

// Home the cursor and clear the screen (ANSI: CSI H, CSI 2 J), as pcm's screen mode redraws.
constexpr const char* kClearScreen = "\x1b[H\x1b[2J";
constexpr int kCell = 12;  // a bandwidth column's width

std::size_t most_channels(const counting::MemoryView& v) {
  std::size_t n = 0;
  for (const auto& s : v.sockets) n = std::max(n, s.channels.size());
  return n;
}

std::string socket_name(int socket) {
  return fmt::format("S{}", socket);
}

// The human table: a row per socket, its channels' read and write then its totals, and the system.
std::string memory_table(double t_s, const counting::MemoryView& v) {
  const auto channels = most_channels(v);
  auto s = fmt::format("{:.3f} s: memory bandwidth, MB/s\n{:<8}", t_s, "Socket");
  for (std::size_t c = 0; c < channels; ++c)
    s += fmt::format("{:>{}}{:>{}}", fmt::format("Ch{} Read", c), kCell, fmt::format("Ch{} Write", c), kCell);
  s += fmt::format("{:>{}}{:>{}}{:>{}}\n", "Read", kCell, "Write", kCell, "Memory", kCell);
  for (const auto& k : v.sockets) {
    s += fmt::format("{:<8}", socket_name(k.socket));
    for (std::size_t c = 0; c < channels; ++c)
      s += c < k.channels.size()
               ? fmt::format("{:>{}.2f}{:>{}.2f}", k.channels[c].read, kCell, k.channels[c].write, kCell)
               : fmt::format("{:>{}}", "", 2 * kCell);
    s += fmt::format("{:>{}.2f}{:>{}.2f}{:>{}.2f}\n", k.read, kCell, k.write, kCell, k.total, kCell);
  }
  s += fmt::format("{:<8}{:>{}}", "System", "", 2 * kCell * static_cast<int>(channels));
  s += fmt::format("{:>{}.2f}{:>{}.2f}{:>{}.2f}\n", v.read, kCell, v.write, kCell, v.total, kCell);
  return s;
}

// -x SEP: a header line once, then a line per socket and the system's, each with the interval's time.
std::string memory_csv(double t_s, const counting::MemoryView& v, const std::string& sep, bool header) {
  const auto channels = most_channels(v);
  std::string s;
  if (header) {
    s += fmt::format("time{0}socket", sep);
    for (std::size_t c = 0; c < channels; ++c) s += fmt::format("{0}Ch{1} Read{0}Ch{1} Write", sep, c);
    s += fmt::format("{0}Read{0}Write{0}Memory\n", sep);
  }
  auto totals = [&](double r, double w, double m) {
    return fmt::format("{0}{1:.2f}{0}{2:.2f}{0}{3:.2f}\n", sep, r, w, m);
  };
  for (const auto& k : v.sockets) {
    s += fmt::format("{:.3f}{}{}", t_s, sep, socket_name(k.socket));
    for (std::size_t c = 0; c < channels; ++c)
      s += c < k.channels.size() ? fmt::format("{0}{1:.2f}{0}{2:.2f}", sep, k.channels[c].read, k.channels[c].write)
                                 : sep + sep;
    s += totals(k.read, k.write, k.total);
  }
  s += fmt::format("{:.3f}{}System", t_s, sep);
  for (std::size_t c = 0; c < channels; ++c) s += sep + sep;
  return s + totals(v.read, v.write, v.total);
}

// -j: a JSON line per socket (its channels in an array) and one for the system.
std::string memory_json(double t_s, const counting::MemoryView& v) {
  std::string s;
  for (const auto& k : v.sockets) {
    s += fmt::format(R"({{"interval" : {:.3f}, "socket" : "{}", "channels" : [)", t_s, socket_name(k.socket));
    for (std::size_t c = 0; c < k.channels.size(); ++c)
      s += fmt::format(R"({}{{"channel" : "Ch{}", "pmu" : "{}", "read" : {:.2f}, "write" : {:.2f}}})", c ? ", " : "", c,
                       k.channels[c].pmu, k.channels[c].read, k.channels[c].write);
    s += fmt::format(R"(], "read" : {:.2f}, "write" : {:.2f}, "memory" : {:.2f}, "unit" : "MB/s"}})"
                     "\n",
                     k.read, k.write, k.total);
  }
  s += fmt::format(R"({{"interval" : {:.3f}, "socket" : "system", "read" : {:.2f}, "write" : {:.2f}, )"
                   R"("memory" : {:.2f}, "unit" : "MB/s"}})"
                   "\n",
                   t_s, v.read, v.write, v.total);
  return s;
}

class MemoryPrinter : public counting::Sink {
 public:
  MemoryPrinter(counting::MemoryViewMetrics names, const ReportOptions& report, bool refresh)
      : names_(std::move(names)), report_(report), refresh_(refresh) {}
  void interval(std::uint64_t since_start_ns, std::uint64_t, const std::vector<Row>& rows,
                const std::vector<MetricRow>& metrics) override {
    const double t = static_cast<double>(since_start_ns) / 1e9;
    const auto view = counting::memory_view(names_, metrics, rows);
    std::string text = report_.format == Format::Json  ? memory_json(t, view)
                       : report_.format == Format::Csv ? memory_csv(t, view, report_.separator, !header_done_)
                                                       : memory_table(t, view) + (refresh_ ? "" : "\n");
    header_done_ = true;
    write_view(report_.out, text, refresh_);
  }

 private:
  counting::MemoryViewMetrics names_;
  const ReportOptions& report_;
  bool refresh_;
  bool header_done_ = false;
};

}  // namespace

void write_view(std::FILE* out, const std::string& text, bool refresh) {
  const std::string all = refresh ? kClearScreen + text : text;
  if (std::fwrite(all.data(), 1, all.size(), out) != all.size() || std::fflush(out) != 0)
    throw_errno("the output", errno ? errno : EIO);
}

int run_view(RawOptions& o, std::string_view option, const ViewPlanner& planner) {
  if (!o.events.empty() || !o.metrics.empty())
    throw UsageError(fmt::format("{} picks its metrics itself: no -e or -M", option));
  if (o.repeat > 1 || o.timeout_ms) throw UsageError(fmt::format("{} prints intervals: no -r or --timeout", option));
  if (!o.interval_ms) o.interval_ms = 1000;  // PCM's 1 s
  counting::check_workload(o.command);
  install_signals();
  auto machine = make_machine(o.machine);
  const auto plan = planner(*machine, families::discover(*machine).inventory);
  o.metrics = plan.metrics;
  fmt::print(stderr, "pmu-raw: {} counts {}\n", option, fmt::join(plan.metrics, ", "));
  o.report.aggregation = plan.aggregation;
  o.report.interval = true;
  counting::Run run(*machine, counting_request(o), note);
  for (const auto& w : run.warnings) fmt::print(stderr, "pmu-raw: warning: {}\n", w);
  std::FILE* out = open_output(o);
  o.report.out = out;
  announce_backends(o, *run.backend);
  // Redrawn in place only on a terminal, and only as the table: a file or pipe gets every interval.
  const bool refresh = o.refresh && o.report.format == Format::Table && ::isatty(::fileno(out));
  auto printer = plan.printer(o.report, refresh);
  counting::ReadLoop loop(run, loop_options(o), *printer);
  loop.count();
  auto restore_errors = loop.finish();
  const int close_err = out != stdout && std::fclose(out) != 0 ? (errno ? errno : EIO) : 0;
  for (const auto& e : restore_errors) fmt::print(stderr, "pmu-raw: error: {}\n", e);
  if (close_err) throw_errno(o.output, close_err);
  if (!restore_errors.empty()) return 1;
  end_as_perf_does(o.command);
  return run_status(loop);
}

int run_memory_view(RawOptions& o) {
  return run_view(o, "--memory", [](Machine& machine, const discovery::Inventory& inventory) -> ViewPlan {
    const auto names = counting::memory_view_metrics(machine, inventory);
    if (!names)
      throw UsageError("--memory: no DRAM bandwidth metric applies to this machine's PMUs (see --list-metrics)");
    return {names->names(), Aggregation::PerSocket, [names = *names](const ReportOptions& report, bool refresh) {
              return std::unique_ptr<counting::Sink>(new MemoryPrinter(names, report, refresh));
            }};
  });
}

}  // namespace pmukit::tools
