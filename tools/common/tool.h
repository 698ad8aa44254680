// pmukit tools -- what every tool shares: machine-root options, the error prefix, exit codes.
//
// Exit status: 0 success, 1 runtime error ("<tool>: error: <message>"), 2 usage error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "pmukit/access/machine.h"

namespace pmukit::tools {

struct MachineArgs {
  std::string snapshot;             // --snapshot DIR
  std::string pci_dump;             // --pci-dump FILE
  std::vector<std::string> params;  // -O name=value
  bool live_perf = false;           // pmu-raw --live-perf (MachineOptions::live_perf)
};

// Adds --snapshot, --pci-dump and -O to `app`.
void add_machine_options(CLI::App& app, MachineArgs& args);
// Builds the Machine the options describe; "-O help" prints the parameter table and exits 0.
// A --snapshot that is this machine's "/" is said to be the live machine (a note on stderr).
std::unique_ptr<Machine> make_machine(const MachineArgs& args);

// Validators for numbers a user types, applied to the text before any conversion (CLI11 would
// wrap "-1" into an unsigned type, and turn "nan" or "1e19" seconds into undefined integers).
// Their errors name the option's bounds as written: "--duration: 'nan' is not a number of
// seconds in (0, 1000000000]".
CLI::Validator whole_number_in(std::uint64_t lo, std::uint64_t hi);  // decimal digits only
CLI::Validator seconds_in(double max);                               // finite, > 0, at most max

// perf stat's command line: options first, then the workload. The workload starts at the first
// word that is not an option or an option's value, or after "--"; every word from there on is the
// workload's, dashes included (`-e X -- fio --rw=read`, `-a -e a,b sleep 10`). Which options take a
// value is read from `app` itself, so the split cannot drift from the options. `argc` is cut to the
// words CLI11 should parse; the workload's words are returned.
std::vector<std::string> split_workload(const CLI::App& app, int& argc, char** argv);

// Runs `body` with pmukit's error conventions; returns the process exit status.
int run_tool(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// Flushes stdout and throws Error when anything written to it was lost (a full disk, a closed
// pipe that was ignored): counts that were not delivered are a failure, not a success.
void check_stdout();

// Prints "<tool>: warning: <msg>" to stderr.
void warn(const std::string& msg);
const char* tool_name();

}  // namespace pmukit::tools
