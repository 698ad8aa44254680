// pmukit -- the inventory as JSON (schema pmukit.inventory/1, documented in docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "pmukit/discovery/inventory.h"

namespace pmukit::discovery {

nlohmann::ordered_json to_json(const PmuUnit& unit);
nlohmann::ordered_json to_json(const IntelTable& table, std::size_t index);
nlohmann::ordered_json to_json(const RootPortMap& map);
// The "arm-cmn" member of a CMN unit: the mesh and every node (cmn_json.cpp).
nlohmann::ordered_json to_json(const CmnUnit& unit);
// The "platform", "intel_tables", "units", "apmt", "root_ports" and "warnings" members.
nlohmann::ordered_json to_json(const Inventory& inventory);

}  // namespace pmukit::discovery
