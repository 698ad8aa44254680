// pmukit -- the NVIDIA PCIe RC mapping of a device as JSON.
#include "pmukit/families/coresight/rcmap_json.h"

#include "pmukit/discovery/inventory_json.h"

namespace pmukit::discovery {

nlohmann::ordered_json to_json(const DeviceRcMap& r, const KernelPmus& kernel) {
  nlohmann::ordered_json j{{"device", r.device.str()},
                           {"kind", r.kind},
                           {"root_port", r.root_port ? nlohmann::ordered_json(r.root_port->str()) : nullptr}};
  if (!r.map) {
    j["error"] = r.error;
    return j;
  }
  j["mapping"] = to_json(*r.map);
  j["filters"] = nlohmann::ordered_json::array();
  for (const auto& f : r.filters)
    j["filters"].push_back({{"pmu", f.pmu},
                            {"terms", f.terms},
                            {"scope", f.scope},
                            {"example", f.example},
                            {"registered", kernel.present ? nlohmann::ordered_json(kernel.has(f.pmu)) : nullptr}});
  return j;
}

}  // namespace pmukit::discovery
