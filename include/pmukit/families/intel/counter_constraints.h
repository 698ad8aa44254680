// pmukit -- which counters of an Intel uncore box an event may use: the event constraint tables of
// Linux arch/x86/events/intel/uncore_snbep.c (UNCORE_EVENT_CONSTRAINT(code, counter mask)), kept as
// data in platforms/intel/counter_constraints.json and named by the box types that use them.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pmukit::platform {

struct CounterRule {
  std::uint64_t event = 0;     // the event select (config & event_mask) the rule is for: 0x83
  std::uint32_t counters = 0;  // bit i: counter i may count it (0x3 = counters 0 and 1)
};

struct CounterConstraints {
  std::string name;    // the kernel table's name: "icx_uncore_iio_constraints"
  std::string source;  // where the rules come from, as the file cites it
  // The config bits a rule matches, as the kernel's EVENT_CONSTRAINT(c, n, m) cmask: 0xff, the
  // event select (UNCORE_EVENT_CONSTRAINT).
  std::uint64_t event_mask = 0xff;
  std::vector<CounterRule> rules;

  // The counters an event with this config may use; nullopt when no rule names it (any counter).
  std::optional<std::uint32_t> counters_for(std::uint64_t config) const;
};

// The "counter_constraints" list of a platforms/ file; WHERE names the file in errors. A deque:
// the database hands out pointers to tables while it may still load others.
void load_counter_constraints(const nlohmann::json& doc, const std::string& where, std::deque<CounterConstraints>& out);

}  // namespace pmukit::platform
