// pmukit -- event definitions in Intel's perfmon JSON format, turned into perf terms on a kernel
// PMU.
//
// A file is either a top-level array of event objects (the kernel's tools/perf/pmu-events copies)
// or {"Header": {...}, "Events": [...]} (github.com/intel/perfmon), which may also hold
// "Topics": {"iMC": "uncore memory", ...} (platforms/perfmon/). Each object's fields are
// strings
// ("EventCode": "0x05", "UMask": "0xCF", "Unit": "IMC", "PerPkg": "1"). The mapping follows perf's
// jevents.py: Unit "IMC" is PMU type uncore_imc, "CBO" is uncore_cbox, and so on; the first code of
// an "EventCode": "0xB7,0xBB" pair is used; zero fields are left out of the terms.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pmukit/syntax/pmu_description.h"

namespace pmukit::events {

struct PerfmonEvent {
  std::string name;              // "UNC_M_CAS_COUNT.RD", as the file spells it
  std::string unit;              // the file's Unit: "IMC", "" for a core event
  std::string pmu_type;          // kernel PMU type: "uncore_imc" (its boxes are uncore_imc_0, ...), "cpu"
  std::string terms;             // "event=0x05,umask=0xcf": event, umask, ch_mask, fc_mask, cmask, edge, inv
  std::uint64_t event_code = 0;  // with ExtSel << 8 folded in, as jevents.py does
  std::uint64_t umask = 0;       // may exceed 8 bits ("0x320")
  double scale = 1.0;            // ScaleUnit "64Bytes" -> 64 and "Bytes"
  std::string scale_unit;
  std::string description;         // BriefDescription
  std::string public_description;  // PublicDescription, "" when absent
  std::string counter;             // Counter as written: "0,1,2,3", "FIXED"
  std::string topic;               // perf list's heading for its Unit ("uncore memory"), from the file's "Topics"
  bool per_pkg = false;
  bool deprecated = false;
  bool experimental = false;

  // The event as a PMU's events/ alias, named in lower case as perf names JSON events:
  // {"unc_m_cas_count.rd", "event=0x05,umask=0xcf", 64, "Bytes"}.
  syntax::EventAlias alias() const;
};

class PerfmonEvents {
 public:
  // Throws Error("<path>: ...") if the file cannot be read or is not valid JSON, and
  // Error("<path>: event '<name>': ...") for an event it cannot convert.
  static PerfmonEvents load(const std::filesystem::path& path);
  // The same from text; `origin` names it in errors.
  static PerfmonEvents parse(std::string_view text, std::string_view origin);

  const std::vector<PerfmonEvent>& events() const { return events_; }
  // Case-insensitive, as perf matches event names (the first of equal names). nullptr when
  // absent. A hash lookup: -e lists of thousands of names against files of 100,000 events.
  const PerfmonEvent* find(std::string_view name) const;

 private:
  std::vector<PerfmonEvent> events_;
  std::unordered_map<std::string, std::size_t> by_name_;  // lower-case name -> first index
};

// perf's Unit -> PMU type rule: "uncore_" + lower-case unit, except the units jevents.py lists
// ("CBO" -> "uncore_cbox", "UPI LL" -> "uncore_upi", "iMPH-U" -> "uncore_arb", ...). "" -> "cpu".
std::string unit_to_pmu_type(std::string_view unit);

}  // namespace pmukit::events
