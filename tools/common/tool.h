// pmukit tools -- what every tool shares: machine-root options, the error prefix, exit codes.
//
// Exit status: 0 success, 1 runtime error ("<tool>: error: <message>"), 2 usage error.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pmukit/access/machine.h"

namespace pmukit::tools {

struct MachineArgs {
  std::string snapshot;             // --snapshot DIR
  std::string pci_dump;             // --pci-dump FILE
  std::vector<std::string> params;  // -O name=value
};

// Adds --snapshot, --pci-dump and -O to `app`.
void add_machine_options(CLI::App& app, MachineArgs& args);
// Builds the Machine the options describe; "-O help" prints the parameter table and exits 0.
std::unique_ptr<Machine> make_machine(const MachineArgs& args);

// Runs `body` with pmukit's error conventions; returns the process exit status.
int run_tool(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// Prints "<tool>: warning: <msg>" to stderr.
void warn(const std::string& msg);
const char* tool_name();

}  // namespace pmukit::tools
