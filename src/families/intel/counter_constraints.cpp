// pmukit -- loading the Intel uncore event constraint tables.
#include "pmukit/families/intel/counter_constraints.h"

#include <fmt/format.h>

#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"

namespace pmukit::platform {

std::optional<std::uint32_t> CounterConstraints::counters_for(std::uint64_t config) const {
  for (const auto& r : rules)
    if ((config & event_mask) == r.event) return r.counters;
  return std::nullopt;
}

void load_counter_constraints(const nlohmann::json& doc, const std::string& where,
                              std::deque<CounterConstraints>& out) {
  if (!doc.contains("counter_constraints")) return;
  for (const auto& t : doc["counter_constraints"]) {
    CounterConstraints c;
    c.name = json_string(t, "name", where + " counter_constraints");
    const std::string at = fmt::format("{} counter_constraints {}", where, c.name);
    c.source = json_string(t, "source", at);
    if (t.contains("event_mask")) c.event_mask = json_number(t["event_mask"], at + " event_mask");
    for (const auto& r : t.at("rules")) {
      CounterRule rule{json_number(r.at("event"), at + " event"),
                       static_cast<std::uint32_t>(json_number(r.at("counters"), at + " counters"))};
      if (rule.counters == 0 || (rule.event & ~c.event_mask))
        throw Error(fmt::format("{}: rule for event {:#x}: no counter, or bits outside event_mask {:#x}", at,
                                rule.event, c.event_mask));
      c.rules.push_back(rule);
    }
    for (const auto& other : out)
      if (other.name == c.name) throw Error(fmt::format("{}: table defined twice", at));
    out.push_back(std::move(c));
  }
}

}  // namespace pmukit::platform
