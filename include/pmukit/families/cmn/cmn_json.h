// pmukit -- a CMN unit's own fields as JSON: the "arm-cmn" member of the inventory (docs/json.md).
#pragma once

#include <nlohmann/json.hpp>

#include "pmukit/families/cmn/cmn_unit.h"

namespace pmukit::discovery {

// The mesh and every node.
nlohmann::ordered_json to_json(const CmnUnit& unit);

}  // namespace pmukit::discovery
