// pmukit -- the kernel's perf PMUs as sysfs describes them under the machine's events.path
// (ROOT/sys/bus/event_source/devices/<pmu>/): type, cpumask, format/, events/ and the mux interval.
//
// The format and alias strings go into the backend-independent PmuDescription, so the same
// encoder serves this backend and the direct one. Every malformed file is an Error naming it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/syntax/pmu_description.h"

namespace pmukit {
class Machine;
}

namespace pmukit::perf {

struct SysfsPmu {
  syntax::PmuDescription desc;  // name, format/ fields, events/ aliases with .scale and .unit
  std::uint32_t type = 0;       // perf_event_attr.type, from <pmu>/type
  // <pmu>/cpumask (or <pmu>/cpus on hybrid core PMUs): the CPUs the PMU counts on. Uncore PMUs
  // have one and count system-wide only. Empty when absent: any CPU, and per-task counting works.
  std::vector<int> cpumask;
  std::optional<unsigned> mux_interval_ms;  // perf_event_mux_interval_ms, when present
  std::set<std::string> per_pkg;            // aliases whose <alias>.per-pkg is 1
  std::set<std::string> snapshot;           // aliases whose <alias>.snapshot is 1
  std::filesystem::path dir;                // the PMU's directory, for messages

  const std::string& name() const { return desc.name; }
};

// The PMU called `name`, or nullopt when events.path has no such directory. Throws Error naming
// the file when a file is malformed: "<dir>/format/umask: format 'umask': ...".
std::optional<SysfsPmu> read_pmu(const Machine& machine, std::string_view name);

// The PMU directory names under events.path, in natural order, without reading them.
std::vector<std::string> pmu_names(const Machine& machine);

// A PMU whose directory could not be read, and why (the Error text, naming the file).
struct PmuError {
  std::string pmu;
  std::string error;
};

// Every PMU under events.path, in natural name order (uncore_imc_2 before uncore_imc_10). A
// malformed PMU throws its Error; with `broken`, it is left out and listed there instead, so that
// one bad PMU does not stop events on the others.
std::vector<SysfsPmu> list_pmus(const Machine& machine, std::vector<PmuError>* broken = nullptr);

// The PMUs a "pmu/.../" event names, as perf 6.1 matches them: the PMU of that exact name; else
// every PMU named <name>_<digits> or <name><digits>, where a leading "uncore_" may be left out
// ("imc" and "uncore_imc" both find uncore_imc_0..N); a name with *, ? or [ is a glob over the
// names. Empty when nothing matches.
std::vector<SysfsPmu> find_pmus(const Machine& machine, std::string_view name);

// cpu.path/online as a list; throws Error naming the file when it is missing or malformed.
std::vector<int> online_cpus(const Machine& machine);

// Natural order of PMU names: digit runs compare as numbers.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace pmukit::perf
