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

// A channel's columns: read and write, or only its total where the machine has no split.
std::string channel_heads(std::size_t channels, bool split, const std::string& sep, int width) {
  std::string s;
  for (std::size_t c = 0; c < channels; ++c)
    s += split ? fmt::format("{0}{1:>{2}}{0}{3:>{2}}", sep, fmt::format("Ch{} Read", c), width,
                             fmt::format("Ch{} Write", c), width)
               : fmt::format("{}{:>{}}", sep, fmt::format("Ch{} Memory", c), width);
  return s;
}

std::string channel_cells(const counting::SocketMemory& k, std::size_t channels, bool split, const std::string& sep,
                          int width) {
  std::string s;
  for (std::size_t c = 0; c < channels; ++c) {
    const bool here = c < k.channels.size();
    if (split)
      s += here ? fmt::format("{0}{1:>{3}.2f}{0}{2:>{3}.2f}", sep, k.channels[c].read, k.channels[c].write, width)
                : fmt::format("{0}{1:>{2}}{0}{1:>{2}}", sep, "", width);
    else
      s += here ? fmt::format("{}{:>{}.2f}", sep, k.channels[c].total, width) : fmt::format("{}{:>{}}", sep, "", width);
  }
  return s;
}

// A socket's or the system's read, write and total; read and write `absent` where there is no split.
std::string totals(double r, double w, double m, bool split, const std::string& sep, int width, const char* absent) {
  if (!split) return fmt::format("{0}{1:>{3}}{0}{1:>{3}}{0}{2:>{3}.2f}", sep, absent, m, width);
  return fmt::format("{0}{1:>{4}.2f}{0}{2:>{4}.2f}{0}{3:>{4}.2f}", sep, r, w, m, width);
}

// The human table: a row per socket, its channels' read and write then its totals, and the system;
// what the machine cannot count is "n/a", said why under the title.
std::string memory_table(double t_s, const counting::MemoryView& v, const std::string& missing) {
  const auto channels = most_channels(v);
  auto s = fmt::format("{:.3f} s: memory bandwidth, MB/s\n", t_s);
  if (!missing.empty()) s += fmt::format("not available: {}\n", missing);
  s += fmt::format("{:<8}{}", "Socket", channel_heads(channels, v.split, "", kCell));
  s += fmt::format("{:>{}}{:>{}}{:>{}}\n", "Read", kCell, "Write", kCell, "Memory", kCell);
  for (const auto& k : v.sockets)
    s += fmt::format("{:<8}{}{}\n", socket_name(k.socket), channel_cells(k, channels, v.split, "", kCell),
                     totals(k.read, k.write, k.total, v.split, "", kCell, "n/a"));
  s += fmt::format("{:<8}{:>{}}", "System", "", (v.split ? 2 : 1) * kCell * static_cast<int>(channels));
  return s + totals(v.read, v.write, v.total, v.split, "", kCell, "n/a") + "\n";
}

// -x SEP: a header line once, then a line per socket and the system's, each with the interval's time;
// a figure the machine cannot count is an empty field.
std::string memory_csv(double t_s, const counting::MemoryView& v, const std::string& sep, bool header) {
  const auto channels = most_channels(v);
  std::string s;
  if (header)
    s += fmt::format("time{0}socket{1}{0}Read{0}Write{0}Memory\n", sep, channel_heads(channels, v.split, sep, 0));
  for (const auto& k : v.sockets)
    s += fmt::format("{:.3f}{}{}{}{}\n", t_s, sep, socket_name(k.socket), channel_cells(k, channels, v.split, sep, 0),
                     totals(k.read, k.write, k.total, v.split, sep, 0, ""));
  s += fmt::format("{:.3f}{}System{}", t_s, sep, channel_cells({}, channels, v.split, sep, 0));
  return s + totals(v.read, v.write, v.total, v.split, sep, 0, "") + "\n";
}

// A JSON figure: MB/s with two decimals, or null where the machine cannot count it.
std::string json_mb(double v, bool known) {
  return known ? fmt::format("{:.2f}", v) : "null";
}

// -j: a JSON line per socket (its channels in an array) and one for the system.
std::string memory_json(double t_s, const counting::MemoryView& v) {
  std::string s;
  for (const auto& k : v.sockets) {
    s += fmt::format(R"({{"interval" : {:.3f}, "socket" : "{}", "channels" : [)", t_s, socket_name(k.socket));
    for (std::size_t c = 0; c < k.channels.size(); ++c)
      s += fmt::format(R"({}{{"channel" : "Ch{}", "pmu" : "{}", "read" : {}, "write" : {}, "memory" : {:.2f}}})",
                       c ? ", " : "", c, k.channels[c].pmu, json_mb(k.channels[c].read, v.split),
                       json_mb(k.channels[c].write, v.split), k.channels[c].total);
    s += fmt::format(R"(], "read" : {}, "write" : {}, "memory" : {:.2f}, "unit" : "MB/s"}})"
                     "\n",
                     json_mb(k.read, v.split), json_mb(k.write, v.split), k.total);
  }
  s += fmt::format(R"({{"interval" : {:.3f}, "socket" : "system", "read" : {}, "write" : {}, )"
                   R"("memory" : {:.2f}, "unit" : "MB/s"}})"
                   "\n",
                   t_s, json_mb(v.read, v.split), json_mb(v.write, v.split), v.total);
  return s;
}

class MemoryPrinter : public ViewPrinter {
 public:
  MemoryPrinter(counting::MemoryViewMetrics names, const ReportOptions& report, bool refresh)
      : ViewPrinter(report, refresh), names_(std::move(names)) {}

 private:
  std::string text(double t_s, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics,
                   const ReportOptions& report, bool header) override {
    const auto view = counting::memory_view(names_, metrics, rows);
    return report.format == Format::Json  ? memory_json(t_s, view)
           : report.format == Format::Csv ? memory_csv(t_s, view, report.separator, header)
                                          : memory_table(t_s, view, names_.missing);
  }

  counting::MemoryViewMetrics names_;
};

}  // namespace

void ViewPrinter::interval(std::uint64_t since_start_ns, std::uint64_t, const std::vector<Row>& rows,
                           const std::vector<MetricRow>& metrics) {
  const double t = static_cast<double>(since_start_ns) / 1e9;
  std::string out = text(t, rows, metrics, report_, !header_done_);
  if (report_.format == Format::Table && !refresh_) out += "\n";
  header_done_ = true;
  write_view(report_.out, out, refresh_);
}

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
  if (!plan.missing.empty()) fmt::print(stderr, "pmu-raw: {}: not available: {}\n", option, plan.missing);
  o.report.aggregation = plan.aggregation;
  o.report.interval = true;
  counting::Run run(*machine, counting_request(o), note);
  for (const auto& w : run.warnings) fmt::print(stderr, "pmu-raw: warning: {}\n", w);
  std::FILE* out = open_output(o);
  o.report.out = out;
  // One line on what counts the view (perf stat would say nothing): its metrics and how each
  // backend counts them, not a line per PMU as -e and -M runs print.
  fmt::print(stderr, "pmu-raw: {} counts {}: {}\n", option, fmt::join(plan.metrics, ", "),
             fmt::join(run.backend->summary(), "; "));
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
  return run_status(loop, o.command);
}

int run_memory_view(RawOptions& o) {
  return run_view(o, "--memory", [](Machine& machine, const discovery::Inventory& inventory) -> ViewPlan {
    const auto names = counting::memory_view_metrics(machine, inventory);
    if (!names)
      throw UsageError(fmt::format("--memory: this machine has no memory controller or memory traffic counters: its "
                                   "uncore PMUs ({}) count no DRAM reads or writes",
                                   fmt::join(counting::pmu_families(machine, inventory), ", ")));
    return {names->names(), Aggregation::PerSocket,
            [names = *names](const ReportOptions& report, bool refresh) {
              return std::unique_ptr<counting::Sink>(new MemoryPrinter(names, report, refresh));
            },
            names->missing};
  });
}

}  // namespace pmukit::tools
