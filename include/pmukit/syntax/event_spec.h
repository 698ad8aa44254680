// pmukit -- an event as the user writes it, in perf syntax, before it is bound to a PMU.
//
// Grammar (perf's, as pmu-raw accepts it on -e):
//   list   := item (',' item)*
//   item   := event | '{' event (',' event)* '}' [':' modifiers]     -- a group
//   event  := pmu '/' [term (',' term)*] '/' [':' modifiers]
//           | name                                                 -- e.g. duration_time
//   term   := key ['=' value]       -- "event=0x05", "umask=0xcf", "root_port=0x100",
//                                      "config1=0x3", "name=label", or a bare alias "cas_count_read"
// Values are C numbers (0x.., decimal). `pmu` is a kernel PMU name (uncore_imc_3,
// nvidia_scf_pmu_0) or a type name that expands to all its boxes (uncore_imc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pmukit::syntax {

struct Term {
  std::string key;                   // "event", "config1", "cas_count_read"
  std::optional<std::string> value;  // nullopt for a bare alias or a flag-like term
};

struct EventSpec {
  std::string pmu;          // "uncore_imc_3", "nvidia_scf_pmu_0", "" for a bare name
  std::vector<Term> terms;  // in order, without the name= term
  std::string name;         // the name= label, "" when absent
  std::string modifiers;    // text after ':' ("" when absent)
  std::string text;         // the event exactly as written
  int group = -1;           // index of the {...} group it belongs to, -1 when ungrouped
};

}  // namespace pmukit::syntax
