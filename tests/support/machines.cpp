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

json pcm_spr_imc_group() {
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

json spr_every_access_type(json extra_units) {
  json units = json::array({pcm_spr_imc_group(),
                            json{{"type", 0},
                                 {"ids", "0-1"},
                                 {"access", "msr"},
                                 {"box_ctl", "0x2000"},
                                 {"id_stride", "0x10"},
                                 {"num_regs", 4},
                                 {"ctl_offset", 2},
                                 {"ctr_offset", 8},
                                 {"width", 48}},
                            json{{"type", 7},
                                 {"ids", "0"},
                                 {"access", "pci"},
                                 {"pci", "0000:7e:0c.0"},
                                 {"pci_offset", "0x438"},
                                 {"num_regs", 4},
                                 {"ctl_offset", "0x30"},
                                 {"ctr_offset", 8},
                                 {"width", 48}}});
  for (auto& u : extra_units) units.push_back(u);
  return intel_machine(143, json::array({pmon_device("0000:6a:03.1", 0, "0x2fffe00000")}),
                       json::array({json{{"device", "0000:6a:03.1"}, {"units", units}}}));
}

json spr_iio_boxes() {
  return json::array({json{{"type", 1},
                           {"ids", "0-1"},
                           {"access", "msr"},
                           {"box_ctl", "0x3000"},
                           {"id_stride", "0x10"},
                           {"num_regs", 4},
                           {"ctl_offset", 8},
                           {"ctr_offset", 1},
                           {"width", 48}}});
}

snapshot::PciDeviceSpec dwc_root_port(const Bdf& bdf) {
  snapshot::PciDeviceSpec rp;
  rp.bdf = bdf;
  rp.config = snapshot::ConfigImage(0x1ded, 0x8000, 0x060400, 1);
  rp.config.add_pcie_cap(0x70, 0x4);
  rp.config.add_ext_cap(0x100, 0x01, 2);
  rp.config.add_vsec(0x374, 0x02, 4, 0x100);
  return rp;
}

}  // namespace pmukit::test
