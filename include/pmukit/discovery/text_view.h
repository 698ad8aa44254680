// pmukit -- pieces the families' text sections share (Family::text_section): how a section
// lists units by socket, their filters and the notes discovery left on them.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

// The units whose details are a T (one family's), by socket.
template <class T>
std::vector<const PmuUnit*> units_of(const Inventory& inventory) {
  std::vector<const PmuUnit*> out;
  for (const auto& u : inventory.units)
    if (u.as<T>()) out.push_back(&u);
  std::stable_sort(out.begin(), out.end(), [](const PmuUnit* a, const PmuUnit* b) { return a->socket < b->socket; });
  return out;
}

// "Socket 1", or "Socket unknown".
std::string socket_heading(int socket);

// The unit's filter terms, with their formats when `verbose`: "none" when it has none.
std::string filter_list(const PmuUnit& unit, bool verbose);

// Each distinct note once, with the units it applies to: "  ! a, b and 3 more: note\n".
std::string notes_text(const std::vector<const PmuUnit*>& units);

}  // namespace pmukit::discovery
