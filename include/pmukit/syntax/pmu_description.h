// pmukit -- what a PMU understands, in the kernel's own vocabulary, whichever backend counts it.
//
// For the perf backend this is read from sysfs (type, format/, events/, cpumask). For the direct
// backend the same strings come from platforms/*.json, so one encoder turns a perf-syntax event
// into (config, config1, config2) for both, exactly as perf does.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pmukit::syntax {

// One format/ entry: "config:8-15,32-55" -> {config,8,15},{config,32,55}; "config1:0" -> {config1,0,0}.
struct FormatRange {
  int config = 0;  // 0 = config, 1 = config1, 2 = config2 (perf also has config3)
  unsigned lo = 0;
  unsigned hi = 0;
};

struct FormatField {
  std::string name;
  std::vector<FormatRange> ranges;  // value bits are spread over these, low bits first
};

// An events/ alias: "event=0x05,umask=0xcf" with its optional .scale and .unit files.
struct EventAlias {
  std::string name;
  std::string terms;   // the alias file's text
  double scale = 1.0;  // <alias>.scale, 1.0 when absent
  std::string unit;    // <alias>.unit, "" when absent
};

struct PmuDescription {
  std::string name;  // "uncore_imc_3", "nvidia_scf_pmu_0"
  std::map<std::string, FormatField> formats;
  std::map<std::string, EventAlias> aliases;
};

// The encoded event: what perf_event_attr carries, and what a direct driver programs.
struct EncodedEvent {
  std::uint64_t config = 0;
  std::uint64_t config1 = 0;
  std::uint64_t config2 = 0;
  std::string name;  // the display name: name= label, else the text perf would print
  double scale = 1.0;
  std::string unit;
};

}  // namespace pmukit::syntax
