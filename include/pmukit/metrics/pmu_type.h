// pmukit -- the kernel PMU types metrics run on: name patterns, the terms they accept and their
// event names, as declared in platforms/metrics/pmu_types.json.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pmukit::metrics {

// Does a kernel PMU name fit a pattern written the way the drivers write their name formats?
// "%u" stands for a decimal number and "%x" for a lower-case hex number (one or more digits);
// everything else is literal. "nvidia_pcie_pmu_%u_rc_%u" matches "nvidia_pcie_pmu_0_rc_3" but
// not "nvidia_pcie_pmu_0"; a pattern without '%' ("nvidia_scf_pmu_0") matches only itself.
bool pmu_name_matches(std::string_view pattern, std::string_view name);

// "" if `pattern` is well formed, else why not ("'%d' is not %u or %x").
std::string check_pmu_pattern(std::string_view pattern);

struct PmuType {
  std::string pattern;              // "nvidia_scf_pmu_%u": the driver's name format
  std::string description;          // "NVIDIA Grace Scalable Coherency Fabric, one per socket"
  std::string source;               // where the names below were checked
  std::vector<std::string> terms;   // format/ terms it accepts: "event", "root_port"
  std::vector<std::string> events;  // events/ aliases: "cmem_rd_data", "cycles"
  std::string file;                 // the file that declared it: "metrics/pmu_types.json"

  bool matches(std::string_view pmu_name) const { return pmu_name_matches(pattern, pmu_name); }
  bool has_term(std::string_view term) const;
  bool has_event(std::string_view event) const;

  // Checks an event written for this PMU in perf's term syntax: "cmem_rd_data",
  // "type=0x105,eventid=0x22,bynodeid=1,nodeid=413" or "rd_bytes_loc,root_port=0x3". Returns ""
  // when every bare name is one of `events` and every key=number one of `terms`, else the reason.
  std::string check_event(std::string_view event) const;
};

}  // namespace pmukit::metrics
