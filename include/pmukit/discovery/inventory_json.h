// pmukit -- the inventory as JSON (schema pmukit.inventory/1, documented in docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "pmukit/discovery/inventory.h"
#include "pmukit/util/text.h"

namespace pmukit::discovery {

// A unit's common fields, and its family's own under the family's name (Family::detail_json).
nlohmann::ordered_json to_json(const PmuUnit& unit);
nlohmann::ordered_json to_json(const IntelTable& table, std::size_t index);
nlohmann::ordered_json to_json(const RootPortMap& map);
// For the families' Family::detail_json(): addresses as "0x..." strings, null when absent.
nlohmann::ordered_json hex_list(const std::vector<std::uint64_t>& values);
template <class T>
nlohmann::ordered_json opt_hex(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(hex(*v)) : nlohmann::ordered_json(nullptr);
}

// The "platform", "intel_tables", "units", "apmt", "root_ports" and "warnings" members.
nlohmann::ordered_json to_json(const Inventory& inventory);

}  // namespace pmukit::discovery
