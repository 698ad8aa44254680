// pmukit -- an Arm CMN mesh as JSON (the "arm-cmn" member of a unit, docs/json.md).
#include "pmukit/families/cmn/cmn_json.h"

#include "pmukit/discovery/inventory_json.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/text.h"

namespace pmukit::discovery {

namespace {

using ojson = nlohmann::ordered_json;

const platform::CmnData* cmn_data() {
  const auto& soc = platform::Database::builtin().soc(platform::SocSection::Cmn);
  return soc.cmn ? &*soc.cmn : nullptr;
}

ojson node_json(const CmnNode& n, const platform::CmnData* data) {
  return ojson{{"type", hex(n.type)},
               {"type_name", data ? data->type_name(n.type) : hex(n.type)},
               {"id", n.id},
               {"logid", n.logid},
               {"offset", hex(n.offset)},
               {"x", n.x},
               {"y", n.y},
               {"port", n.port},
               {"dev", n.dev},
               {"xp", n.xp},
               {"dtc", n.dtc >= 0 ? ojson(n.dtc) : ojson(nullptr)},
               {"dtm", n.dtm}};
}

ojson xp_json(const CmnXp& xp, const platform::CmnData* data) {
  ojson ports = ojson::array();
  for (const auto& p : xp.ports)
    ports.push_back({{"port", p.port},
                     {"connect_info", hex(p.connect_info.raw)},
                     {"device_type", hex(p.device_type)},
                     {"device_type_name", data ? data->device_type_name(p.device_type) : hex(p.device_type)},
                     {"cal", p.cal}});
  return ojson{{"node", xp.node},
               {"ports", ports},
               {"device_ports", xp.device_ports ? ojson(xp.device_ports) : ojson(nullptr)},
               {"portid_bits", xp.portid_bits},
               {"deviceid_bits", xp.deviceid_bits},
               {"dtms", xp.dtms},
               {"devices", xp.devices}};
}

}  // namespace

ojson to_json(const CmnUnit& u) {
  const auto* data = cmn_data();
  ojson nodes = ojson::array(), xps = ojson::array(), dtms = ojson::array(), dtcs = ojson::array();
  ojson skipped = ojson::array();
  for (const auto& n : u.nodes) nodes.push_back(node_json(n, data));
  for (const auto& x : u.xps) xps.push_back(xp_json(x, data));
  for (const auto& d : u.dtms) dtms.push_back({{"xp", d.xp}, {"index", d.index}, {"offset", hex(d.offset)}});
  for (const auto& d : u.dtcs) dtcs.push_back({{"domain", d.domain}, {"node", d.node}, {"offset", hex(d.offset)}});
  for (const auto& s : u.skipped)
    skipped.push_back(
        {{"pointer", hex(s.pointer)}, {"parent", s.parent}, {"reason", s.reason}, {"expected", s.expected}});
  return ojson{{"firmware", u.firmware},
               {"device", u.device},
               {"firmware_part", hex(u.firmware_part)},
               {"base", hex(u.base)},
               {"size", hex(u.size)},
               {"root_offset", hex(u.root_offset)},
               {"mapped_through", u.mapped_through},
               {"kernel_pmu", u.kernel_pmu.empty() ? ojson(nullptr) : ojson(u.kernel_pmu)},
               {"walked", u.walked},
               {"part", hex(u.part)},
               {"part_name", u.part_name},
               {"revision", u.revision},
               {"revision_name", u.revision_name},
               {"info_global", hex(u.info_global.raw)},
               {"multi_dtm", u.multi_dtm},
               {"device_isolation", u.device_isolation},
               {"mesh", {{"x", u.mesh_x}, {"y", u.mesh_y}, {"xy_bits", u.xy_bits}}},
               {"ports_used", u.ports_used},
               {"register_reads", u.register_reads},
               {"nodes", nodes},
               {"xps", xps},
               {"dtms", dtms},
               {"dtcs", dtcs},
               {"skipped", skipped}};
}

}  // namespace pmukit::discovery
