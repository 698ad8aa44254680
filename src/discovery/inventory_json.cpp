// pmukit -- inventory to JSON. Addresses are "0x..." strings (64-bit values do not survive every
// JSON reader as numbers); small identifiers are numbers.
#include "pmukit/discovery/inventory_json.h"

#include "pmukit/util/text.h"

namespace pmukit::discovery {

using ojson = nlohmann::ordered_json;

ojson hex_list(const std::vector<std::uint64_t>& v) {
  ojson a = ojson::array();
  for (auto x : v) a.push_back(hex(x));
  return a;
}

ojson to_json(const PmuUnit& u) {
  ojson j{{"name", u.name},
          {"family", family_name(u)},
          {"type_name", u.type_name},
          {"pmu_kind", u.pmu_kind},
          {"socket", u.socket},
          {"die", u.die},
          {"counters", u.num_counters},
          {"width", u.counter_width}};
  j["filters"] = ojson::array();
  for (const auto& f : u.filters) j["filters"].push_back({{"name", f.name}, {"format", f.format}, {"help", f.help}});
  j["notes"] = u.notes;
  for (const auto& a : u.aliases) j["aliases"].push_back(a.name);
  if (u.family) j[std::string(family_name(u))] = u.family->detail_json(u);
  return j;
}

ojson to_json(const IntelTable& t, std::size_t index) {
  return ojson{{"index", index},
               {"source", t.source},
               {"origin", t.origin},
               {"device", t.device ? ojson(t.device->str()) : ojson(nullptr)},
               {"base", hex(t.base)},
               {"mapped_through", t.mapped_through},
               {"socket", t.socket},
               {"die", t.die},
               {"socket_source", t.socket_source},
               {"stride", t.stride},
               {"max_units", t.max_units},
               {"access_type", t.access_type},
               {"global_ctl", hex(t.global_ctl)},
               {"valid_units", t.valid_units},
               {"skipped_units", t.skipped_units},
               {"empty_records", t.empty_records}};
}

ojson to_json(const RootPortMap& m) {
  return ojson{{"device", m.device.str()},
               {"root_port", m.is_root_port},
               {"scheme", m.scheme},
               {"source", m.source},
               {"dvsec_offset", m.dvsec_offset ? ojson(hex(*m.dvsec_offset)) : ojson(nullptr)},
               {"bus", m.bus >= 0 ? ojson(m.bus) : ojson(nullptr)},
               {"segment", m.segment >= 0 ? ojson(m.segment) : ojson(nullptr)},
               {"rp", m.rp},
               {"rc", m.rc >= 0 ? ojson(m.rc) : ojson(nullptr)},
               {"socket", m.socket},
               {"pmus", m.pmus}};
}

ojson to_json(const Inventory& inv) {
  ojson j;
  j["platform"] =
      inv.platform.empty() ? ojson(nullptr) : ojson{{"name", inv.platform}, {"description", inv.platform_description}};
  j["intel_tables"] = ojson::array();
  for (std::size_t i = 0; i < inv.intel_tables.size(); ++i)
    j["intel_tables"].push_back(to_json(inv.intel_tables[i], i));
  j["units"] = ojson::array();
  for (const auto& u : inv.units) j["units"].push_back(to_json(u));
  j["apmt"] = inv.apmt ? ojson{{"source", inv.apmt->source}, {"revision", inv.apmt->revision},
                               {"nodes", inv.apmt->nodes},   {"checksum_ok", inv.apmt->checksum_ok},
                               {"oem_id", inv.apmt->oem_id}, {"oem_table_id", inv.apmt->oem_table_id}}
                       : ojson(nullptr);
  j["root_ports"] = ojson::array();
  for (const auto& m : inv.root_ports) j["root_ports"].push_back(to_json(m));
  j["warnings"] = inv.warnings;
  return j;
}

}  // namespace pmukit::discovery
