// pmukit tests -- the register image of a snapshot: every file or range a counting run may write
// (MSR files, config files, the MMIO blocks of the given units), byte for byte.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"

namespace pmukit {
class Machine;
}

namespace pmukit::test {

using RegisterImage = std::map<std::string, std::vector<std::uint8_t>>;

RegisterImage register_image(Machine& machine, const discovery::Inventory& inventory);
// The first difference, "" when equal.
std::string image_difference(const RegisterImage& before, const RegisterImage& after);

}  // namespace pmukit::test
