// pmukit tests -- machine spec snippets.
#include "support/machines.h"

namespace pmukit::test {

using json = nlohmann::json;

json pmon_device(const std::string& bdf, int numa_node, const std::string& bar0, const std::string& size,
                 const std::string& device_id) {
  return json{
      {"bdf", bdf},
      {"id", "8086:" + device_id},
      {"class", "0x110100"},
      {"numa_node", numa_node},
      {"caps",
       json::array({json{{"at", "0x90"}, {"pcie", "rciep"}},
                    json{{"at", "0x100"}, {"dvsec", {{"vendor", "0x8086"}, {"id", 1}, {"rev", 1}, {"len", 16}}}},
                    json{{"at", "0x110"}, {"dvsec", {{"vendor", "0x8086"}, {"id", 2}, {"rev", 1}, {"len", 16}}}}})},
      {"bars", json::array({json{{"index", 0}, {"base", bar0}, {"size", size}, {"mem64", true}}})}};
}

json intel_machine(int model, json devices, json tables) {
  return json{{"name", "test"},
              {"cpuinfo", {{"vendor", "GenuineIntel"}, {"family", 6}, {"model", model}}},
              {"topology", {{"sockets", 2}, {"cpus_per_die", 2}}},
              {"msr_devices", true},
              {"pci_devices", std::move(devices)},
              {"intel_tables", std::move(tables)}};
}

json seed_spr_imc_group() {
  return json{{"type", 6},
              {"ids", "0-7"},
              {"access", "mmio"},
              {"box_ctl", json::array({"0xc8aa2800", "0xc8aaa800", "0xc8b22800", "0xc8b2a800", "0xc8ba2800",
                                       "0xc8baa800", "0xc8c22800", "0xc8c2a800"})},
              {"num_regs", 4},
              {"ctl_offset", 64},
              {"ctr_offset", 8},
              {"width", 48}};
}

}  // namespace pmukit::test
