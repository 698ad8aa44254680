// pmu-discover -- unit <-> kernel perf PMU mapping.
#include "perf_map.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/access/machine.h"

namespace pmukit::tools {

void print_perf_mapping(const Machine& machine, const std::vector<PerfMapping>& map) {
  if (map.empty()) return;
  std::vector<std::string> present, absent;
  for (const auto& m : map) {
    if (m.present)
      present.push_back(m.perf == m.unit ? fmt::format("{} (type {})", m.unit, m.type)
                                         : fmt::format("{} (as {}, type {})", m.unit, m.perf, m.type));
    else if (absent.empty() || absent.back() != m.unit)
      absent.push_back(m.unit);
  }
  auto list = [](const std::vector<std::string>& v) {
    return v.size() <= 4 ? fmt::format("{}", fmt::join(v, ", ")) : fmt::format("{}, {}, ... {}", v[0], v[1], v.back());
  };
  // Shown as the machine sees it ("/sys/bus/event_source/devices"), not as the snapshot's host path.
  auto dir = machine.param("events.path");
  auto rel = dir.lexically_relative(machine.root());
  std::string shown = rel.empty() || *rel.begin() == ".." ? dir.string() : "/" + rel.generic_string();
  fmt::print("\nKernel perf PMUs ({}): {} of {} units have one\n", shown, present.size(), map.size());
  if (!present.empty()) fmt::print("  in perf:     {}\n", list(present));
  if (!absent.empty()) fmt::print("  direct only: {}\n", list(absent));
}

void add_perf_mapping(nlohmann::ordered_json& doc, const std::vector<PerfMapping>& map) {
  auto& units = doc["units"];
  for (std::size_t i = 0; i < units.size() && i < map.size(); ++i)
    units[i]["perf_pmu"] =
        map[i].present
            ? nlohmann::ordered_json{{"name", map[i].perf}, {"type", map[i].type}, {"cpumask", map[i].cpumask}}
            : nlohmann::ordered_json(nullptr);
}

}  // namespace pmukit::tools
