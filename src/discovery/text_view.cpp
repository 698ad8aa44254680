// pmukit -- pieces the families' text sections share.
#include "pmukit/discovery/text_view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pmukit::discovery {

std::string socket_heading(int socket) {
  return socket < 0 ? "Socket unknown" : fmt::format("Socket {}", socket);
}

std::string filter_list(const PmuUnit& unit, bool verbose) {
  if (unit.filters.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& f : unit.filters) parts.push_back(verbose ? fmt::format("{} ({})", f.name, f.format) : f.name);
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string notes_text(const std::vector<const PmuUnit*>& units) {
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const auto* u : units)
    for (const auto& n : u->notes) {
      auto it = std::find_if(notes.begin(), notes.end(), [&](const auto& p) { return p.first == n; });
      if (it == notes.end())
        notes.push_back({n, {u->name}});
      else
        it->second.push_back(u->name);
    }
  std::string out;
  for (const auto& [note, names] : notes) {
    std::string who = names.size() <= 3 ? fmt::format("{}", fmt::join(names, ", "))
                                        : fmt::format("{}, {} and {} more", names[0], names[1], names.size() - 2);
    out += fmt::format("  ! {}: {}\n", who, note);
  }
  return out;
}

}  // namespace pmukit::discovery
