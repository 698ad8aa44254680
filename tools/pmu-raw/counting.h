// pmu-raw -- the counting run: options to a counting::Run, the library's read loop, the report.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/tool.h"
#include "pmukit/counting/read_loop.h"
#include "report.h"

namespace pmukit::tools {

struct RawOptions {
  MachineArgs machine;
  std::vector<std::string> events;  // -e arguments (each may be a list)
  std::optional<std::uint64_t> interval_ms;
  std::optional<std::uint64_t> interval_count;
  std::uint64_t mux_interval_ms = counting::kDefaultMuxIntervalMs;  // --mux-interval
  std::optional<double> duration_s;
  std::optional<std::uint64_t> timeout_ms;  // --timeout: stops a workload too
  bool verbose = false;                     // -v: each unit's counter on stderr
  std::uint64_t repeat = 1;                 // -r N
  std::string cpu_list;                     // -C LIST
  std::vector<std::string> command;         // after --
  std::string backend = "auto";             // --backend, as CLI11 checked it
  bool force = false;
  ReportOptions report;
  std::string output;                      // -o FILE
  std::vector<std::string> metrics;        // -M NAME[/TERMS/]
  std::vector<std::string> metric_params;  // --metric-param NAME=VALUE
  std::vector<std::string> event_files;    // --event-file FILE (intel/perfmon JSON)
  bool refresh = false;                    // --refresh: a view redrawn in place on a terminal
};

// Shared by the counting run and the views (views.h).
void install_signals();
void note(const std::string& message);
std::FILE* open_output(const RawOptions& options);
void announce_backends(const RawOptions& options, const counting::Backend& backend);
void end_as_perf_does(const std::vector<std::string>& command);
int run_status(const counting::ReadLoop& loop);

// What to count, and how the loop reads it, as the options say.
counting::Request counting_request(const RawOptions& options);
counting::LoopOptions loop_options(const RawOptions& options);

// The read loop's sink: each interval printed as it ends, or the totals with perf stat's summary.
class Printer : public counting::Sink {
 public:
  Printer(Reporter& reporter, const counting::Run& run, const std::vector<std::string>& command, bool verbose = false)
      : reporter_(reporter), run_(run), command_(command), verbose_(verbose) {}
  void interval(std::uint64_t since_start_ns, std::uint64_t window_ns, const std::vector<Row>& rows,
                const std::vector<MetricRow>& metrics) override;
  void totals(std::uint64_t elapsed_ns, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics) override;

 private:
  Reporter& reporter_;
  const counting::Run& run_;
  const std::vector<std::string>& command_;
  bool verbose_;
};

// Returns the exit status: 0, the command's status when it failed, or 1 when registers could not
// all be restored.
int run_counting(RawOptions& options);
// --recover: restores a killed run's registers from its journal; `take_over` (--recover --force):
// also when its writer cannot be proven gone.
int run_recover(const MachineArgs& machine, bool take_over);
// --discard-journal: sets a journal that cannot be recovered aside, its registers not restored.
int run_discard_journal(const MachineArgs& machine);

}  // namespace pmukit::tools
