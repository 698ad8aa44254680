// pmukit tests -- small machine specs (the JSON of platforms/machines) for discovery tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pmukit::test {

// A PMON discovery device (8086:<device>) with the corpus capability layout and one 64-bit BAR.
nlohmann::json pmon_device(const std::string& bdf, int numa_node, const std::string& bar0,
                           const std::string& size = "0x2000", const std::string& device_id = "09a7");

// A one-table Intel machine: 2 sockets x 2 CPUs, the given device list and tables.
nlohmann::json intel_machine(int model, nlohmann::json devices, nlohmann::json tables);

// The eight SPR IMC units of seed 001 (type 6, ids 0-7, MMIO, 4 x 48 bits, ctrl offset 64, ctr offset 8).
nlohmann::json seed_spr_imc_group();

}  // namespace pmukit::test
