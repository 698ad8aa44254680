// pmukit tests -- small machine specs (the JSON of platforms/machines) for discovery tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pmukit/snapshot/builder.h"

namespace pmukit::test {

// A PMON discovery device (8086:<device>) with the corpus capability layout and one 64-bit BAR.
nlohmann::json pmon_device(const std::string& bdf, int numa_node, const std::string& bar0,
                           const std::string& size = "0x2000", const std::string& device_id = "09a7");

// A one-table Intel machine: 2 sockets x 2 CPUs, the given device list and tables.
nlohmann::json intel_machine(int model, nlohmann::json devices, nlohmann::json tables);

// The eight SPR IMC units of the PCM uncore notes (type 6, ids 0-7, MMIO, 4 x 48 bits, ctrl offset 64, ctr offset 8).
nlohmann::json pcm_spr_imc_group();

// An SPR machine with a box of every access type: the guide's IMC boxes over MMIO at 0xc8aa2800..,
// two CHAs over MSRs at 0x2000 + 0x10 * id (controls +2, counters +8) and an M2M box at config
// offset 0x438 of 0000:7e:0c.0 (controls +0x30, counters +8); `extra_units` join the table.
nlohmann::json spr_every_access_type(nlohmann::json extra_units = nlohmann::json::array());

// Two SPR IIO boxes (type 1, ids 0-1) over MSRs: box control 0x3000 + 0x10 * id, controls +8,
// counters +1, 4 x 48 bits -- units for spr_every_access_type's `extra_units`.
nlohmann::json spr_iio_boxes();

// A DesignWare root port (Alibaba 1ded:8000) whose RAS DES VSEC is at config offset 0x374.
snapshot::PciDeviceSpec dwc_root_port(const Bdf& bdf);

}  // namespace pmukit::test
