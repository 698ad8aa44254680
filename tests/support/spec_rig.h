// pmukit tests -- a machine written from a machine spec to a temporary directory and discovered:
// the set-up of the driver and preflight tests.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "support/test_support.h"

namespace pmukit::test {

struct SpecRig {
  TempDir dir;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult found;
  explicit SpecRig(const nlohmann::json& spec);
  // The discovered unit of that name; throws Error when there is none.
  const discovery::PmuUnit& unit(const std::string& name) const;
};

}  // namespace pmukit::test
