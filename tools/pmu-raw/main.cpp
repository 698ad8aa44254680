// pmu-raw -- counts uncore PMU events by programming their registers directly, with perf's event
// syntax and perf stat's output shapes.
#include <fmt/format.h>

#include "common/tool.h"
#include "counting.h"
#include "listing.h"
#include "pmukit/util/error.h"
#include "views.h"

using namespace pmukit;

namespace {

constexpr const char* kAbout =
    "pmu-raw: count uncore PMU events by programming the PMU registers directly.\n\n"
    "Events use perf's syntax with kernel PMU names, so perf command lines run as written:\n"
    "  pmu-raw -a -e 'nvidia_scf_pmu_0/cmem_rd_data/' -I 1000\n"
    "  pmu-raw -e uncore_imc/cas_count_read/            all IMC boxes, merged (--per-box: each)\n"
    "  pmu-raw -e 'uncore_imc_3/event=0x05,umask=0xcf,name=rd3/' -- ./workload\n"
    "  pmu-raw --snapshot /tmp/spr -e uncore_imc/cas_count_read/ -I 1000   (with pmu-sim run)\n"
    "Every register pmu-raw changes is saved first and restored on exit, on error and on\n"
    "SIGINT/SIGTERM; only registers of discovered PMU units are ever written.";

// The flags that are not RawOptions fields themselves.
struct Flags {
  bool system_wide = false, per_socket = false, per_box = false, per_device = false, per_stack = false, json = false;
  bool per_die = false, per_node = false, metric_only = false;
  std::string separator;
  bool list_events = false, list_metrics = false, list_all = false, names_only = false;
  bool recover = false, discard_journal = false;
  bool memory = false, io = false;
};

// What to count, and for how long.
void add_counting_options(CLI::App& app, tools::RawOptions& o, Flags& f) {
  app.add_option("-e,--event", o.events, "Event(s) to count, perf syntax: pmu/term=value,.../ (repeatable)")
      ->type_name("EVENT");
  app.add_flag("-a,--all-cpus", f.system_wide,
               "System-wide (accepted for perf compatibility: uncore counting is always "
               "system-wide)");
  app.add_option("-I,--interval-print", o.interval_ms, "Print counts every MS milliseconds")
      ->type_name("MS")
      ->check(tools::whole_number_in(1, 3600000));
  app.add_option("--interval-count", o.interval_count, "Stop after N intervals")
      ->type_name("N")
      ->check(tools::whole_number_in(1, 1'000'000'000));
  app.add_option("--duration", o.duration_s, "Count for SECONDS, then stop")
      ->type_name("SECONDS")
      ->check(tools::seconds_in(1e9));
  app.add_option("--timeout", o.timeout_ms,
                 "Stop after MS milliseconds (at least 10), as perf stat --timeout: a workload still running then is "
                 "sent SIGTERM, and the run's counts are printed")
      ->type_name("MS")
      ->check(tools::whole_number_in(10, 1'000'000'000'000ull));
  app.add_option("-r,--repeat", o.repeat,
                 "Run the command (or count for --duration or --timeout) N times, as perf stat -r: the report shows "
                 "each count's mean over the runs and its spread, '( +- x.xx% )' (the standard error of the mean, "
                 "relative to it)")
      ->type_name("N")
      ->check(tools::whole_number_in(1, 1'000'000));
  app.add_option("-C,--cpu", o.cpu_list,
                 "Count only the PMU units whose CPU is in LIST (0-3,8), as perf stat -C on uncore PMUs: a unit is "
                 "counted from the CPU its PMU's cpumask names, the first CPU of its die")
      ->type_name("LIST");
}

// How the counts are shown.
void add_output_options(CLI::App& app, tools::RawOptions& o, Flags& f) {
  app.add_flag("--per-socket", f.per_socket, "One line per event per socket");
  app.add_flag("--per-die", f.per_die,
               "One line per event per die (S0-D0), the die of the CPU each PMU unit counts from, as perf stat "
               "--per-die");
  app.add_flag("--per-node", f.per_node,
               "One line per event per NUMA node (N0), the node whose cpulist holds the CPU each PMU unit counts "
               "from (the machine's /sys/devices/system/node), as perf stat --per-node");
  app.add_flag("-A,--no-aggr,--per-box,--no-merge", f.per_box,
               "One line per event per PMU unit (box), as perf stat -A (--no-aggr) and --no-merge show uncore PMUs");
  app.add_flag("--per-device", f.per_device,
               "With -M and an Intel IIO metric (iio_inbound_read_bw...): one line per PCIe device behind a root port, "
               "BDF first and named as lspci names it, counted on its IIO stack PMU with its part's ch_mask; a device "
               "no part selects is listed with the reason");
  app.add_flag("--per-stack", f.per_stack,
               "With -M and an Intel IIO metric: one line per IIO stack PMU (uncore_iio_<n>), every part of the stack");
  app.add_flag("--metric-only", f.metric_only,
               "With -M: print the metrics alone, not the events they are computed from, as perf stat --metric-only");
  app.add_option("-x,--field-separator", f.separator, "CSV output with this separator, as perf stat -x")
      ->type_name("SEP");
  app.add_flag("-j,--json", f.json, "JSON lines with perf stat -j's field names");
  app.add_option("-o,--output", o.output, "Write the counts to FILE")->type_name("FILE");
  app.add_flag("-v,--verbose", o.verbose,
               "Also print each unit's counter before the report, on standard error, as perf stat -v: EVENT: PMU: "
               "raw count, enabled and running nanoseconds");
  app.add_flag("--live-perf", o.machine.live_perf,
               "With --snapshot: let the perf backend count this machine's kernel PMUs under the snapshot's PMU "
               "type numbers (for testing; without it perf refuses a snapshot)");
}

// How the events are counted, and what is computed from them.
void add_backend_and_metric_options(CLI::App& app, tools::RawOptions& o, Flags& f) {
  app.add_flag("--force", o.force, "Take units whose counters are already enabled (their registers are restored)");
  app.add_flag("--recover", f.recover,
               "Only restore the registers a pmukit tool killed with SIGKILL left programmed (their original values "
               "are in its journal, units.path/UNIT.journal), then exit; journals of tools still running are left "
               "alone; every run does this first for its units. With --force: also when "
               "the journal's writer ran in another PID namespace under another lock file, so that pmu-raw cannot "
               "tell whether it has ended");
  app.add_flag("--discard-journal", f.discard_journal,
               "Set aside the journals that cannot be recovered (as UNIT.journal.discarded), without restoring their "
               "registers: once they are known to be right, so that runs are no longer refused");
  app.add_option("--backend", o.backend,
                 "direct: program the registers; perf: the kernel's perf_event_open; auto: direct where the "
                 "registers can be mapped and written and nothing else uses them, perf otherwise (each choice "
                 "and its reason is printed)")
      ->check(CLI::IsMember({"direct", "perf", "auto"}))
      ->capture_default_str();
  app.add_option("--mux-interval", o.mux_interval_ms,
                 "When a unit's events outnumber its counters, count them in turn, the next set every MS "
                 "milliseconds (perf's default multiplexing interval), scaled by the time each was counted")
      ->type_name("MS")
      ->check(tools::whole_number_in(1, 3600000))
      ->capture_default_str();
  app.add_option("-M,--metrics", o.metrics,
                 "Metric(s) to compute, from the vendor guides' formulas (docs/metrics.md): NAME or NAME/TERMS/, "
                 "comma-separated (TERMS go on every event, commas inside them included, e.g. -M "
                 "'t410_pcie_read_latency/src_bdf=0x4100,src_bdf_en=1/'); every PMU here it applies to, under "
                 "each name the PMU answers to")
      ->type_name("METRIC");
  app.add_option("--metric-param", o.metric_params, "Set a metric parameter, e.g. CMN_FREQ_GHZ=2.0")
      ->type_name("NAME=VALUE");
  app.add_option("--event-file", o.event_files,
                 "Intel perfmon JSON event file(s): their event names work in -e, before the built-in ones (perf's "
                 "uncore events for this CPU model, e.g. unc_m_cas_count.rd, need no file)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
}

// PCM's views, pmu-raw's metrics arranged as Intel PCM's tools print them.
void add_view_options(CLI::App& app, tools::RawOptions& o, Flags& f) {
  app.add_flag("--memory", f.memory,
               "pcm-memory's view: the DRAM bandwidth metrics that apply here (imc_read_bw, dram_read_bw... or AMD's "
               "amd_umc_read_bw...), each interval (-I, 1000 ms unless given) one table of MB/s (1e6 bytes a "
               "second): a row per socket with each memory channel's read and write (Ch0 Read, Ch0 Write...) and "
               "the socket's Read, Write and Memory (both), then the system's; -x SEP and -j give the same as CSV "
               "and JSON lines");
  app.add_flag("--io", f.io,
               "pcm-iio's view: a row per PCIe device behind an IIO stack (BDF, socket, stack PMU and part, lspci's "
               "name) with its inbound (DMA) read and write and outbound (MMIO) read and write in MB/s, from the IIO "
               "bandwidth metrics that apply here, each interval (-I, 1000 ms unless given); -x SEP and -j too");
  app.add_flag(
      "--refresh", o.refresh,
      "With --memory or --io: clear the terminal and redraw the table each interval, as pcm's screen mode (only "
      "when the output is a terminal; otherwise every interval is printed)");
}

// Whether a view goes with the other options: it picks its metrics and shows them its own way.
void check_view_options(const Flags& f, const tools::RawOptions& o) {
  if (o.refresh && !f.memory && !f.io) throw UsageError("--refresh redraws a view: give --memory or --io");
  if (f.memory && f.io) throw UsageError("--memory and --io are exclusive");
  if (!f.memory && !f.io) return;
  if (o.report.aggregation != tools::Aggregation::Merged || o.report.metric_only)
    throw UsageError(
        fmt::format("{} has its own layout: no --per-* or --metric-only with it", f.io ? "--io" : "--memory"));
}

void add_listing_options(CLI::App& app, Flags& f) {
  app.add_flag("--list-events", f.list_events,
               "List the events each PMU of this machine knows by name, then the uncore events perf knows on this CPU "
               "model by topic as perf list shows them (with --event-file, the file's events too)");
  app.add_flag("--list-metrics", f.list_metrics, "List the metrics that apply to this machine's PMUs");
  app.add_flag("--all", f.list_all, "With --list-metrics: every metric pmukit knows");
  app.add_flag("--names-only", f.names_only,
               "With --list-events or --list-metrics: names alone, one a line (PMU/, PMU/EVENT/, METRIC), for scripts "
               "and shell completion");
}

void apply_output_flags(const Flags& f, tools::RawOptions& o) {
  if (f.per_socket + f.per_box + f.per_device + f.per_stack + f.per_die + f.per_node > 1)
    throw UsageError("--per-socket, --per-die, --per-node, --per-box (-A), --per-device and --per-stack are exclusive");
  if (f.json && !f.separator.empty()) throw UsageError("-j and -x are exclusive");
  o.report.aggregation = f.per_box      ? tools::Aggregation::PerBox
                         : f.per_socket ? tools::Aggregation::PerSocket
                         : f.per_device ? tools::Aggregation::PerDevice
                         : f.per_stack  ? tools::Aggregation::PerStack
                         : f.per_die    ? tools::Aggregation::PerDie
                         : f.per_node   ? tools::Aggregation::PerNode
                                        : tools::Aggregation::Merged;
  o.report.format = f.json ? tools::Format::Json : f.separator.empty() ? tools::Format::Table : tools::Format::Csv;
  if (!f.separator.empty()) o.report.separator = f.separator;
  o.report.metric_only = f.metric_only;
}

// perf stat's rules for --timeout: one way to say when the run stops, and not with intervals.
void check_stop_options(const tools::RawOptions& o) {
  const auto aggregation = o.report.aggregation;
  if (o.report.metric_only && o.metrics.empty()) throw UsageError("--metric-only prints metrics: give -M METRIC");
  if (!o.metrics.empty() && (aggregation == tools::Aggregation::PerDie || aggregation == tools::Aggregation::PerNode))
    throw UsageError("--per-die and --per-node show events: metrics are merged or per socket (--per-socket)");
  if (o.repeat > 1 && o.interval_ms)
    throw UsageError("-r does not go with -I: a repeated run reports its mean at the end");
  if (o.repeat > 1 && o.command.empty() && !o.duration_s && !o.timeout_ms)
    throw UsageError("-r repeats a command, --duration or --timeout: give one (a run until Ctrl-C does not repeat)");
  if (!o.timeout_ms) return;
  if (o.interval_ms) throw UsageError("--timeout does not go with -I (as perf stat: one report, at the timeout)");
  if (o.duration_s) throw UsageError("--timeout and --duration both say when to stop: give one");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kAbout, "pmu-raw"};
  app.allow_extras(false);
  tools::RawOptions o;
  Flags f;
  tools::add_machine_options(app, o.machine);
  add_counting_options(app, o, f);
  add_output_options(app, o, f);
  add_backend_and_metric_options(app, o, f);
  add_view_options(app, o, f);
  add_listing_options(app, f);
  std::vector<std::string> workload_help;  // shown by --help; the words come from split_workload
  app.add_option("command", workload_help,
                 "The workload counted over, as perf stat takes it: the first word that is not an option (or "
                 "everything after --), with all its own arguments; pmu-raw exits with its status");
  app.set_version_flag("-V,--version", "pmu-raw (pmukit) 0.1.0");
  o.command = tools::split_workload(app, argc, argv);
  return tools::run_tool("pmu-raw", app, argc, argv, [&] {
    apply_output_flags(f, o);
    if (f.names_only && !f.list_events && !f.list_metrics)
      throw UsageError("--names-only goes with --list-events or --list-metrics");
    if (f.recover && f.discard_journal) throw UsageError("--recover and --discard-journal are exclusive");
    if (f.recover) {
      if (!o.events.empty() || !o.metrics.empty() || !o.command.empty())
        throw UsageError("--recover only restores a killed run's registers: no events, metrics or command with it");
      return tools::run_recover(o.machine, o.force);
    }
    if (f.discard_journal) {
      if (!o.events.empty() || !o.metrics.empty() || !o.command.empty() || o.force)
        throw UsageError("--discard-journal only sets a journal aside: no events, metrics, command or --force with it");
      return tools::run_discard_journal(o.machine);
    }
    if (f.list_events)
      return f.names_only ? tools::list_event_names(o.machine, o.event_files)
                          : tools::list_events(o.machine, o.event_files);
    if (f.list_metrics) return tools::list_metric_catalog(o.machine, f.list_all, f.names_only);
    check_view_options(f, o);
    if (f.memory) return tools::run_memory_view(o);
    if (f.io) return tools::run_io_view(o);
    check_stop_options(o);
    return tools::run_counting(o);
  });
}
