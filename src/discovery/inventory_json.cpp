// pmukit -- inventory to JSON. Addresses are "0x..." strings (64-bit values do not survive every
// JSON reader as numbers); small identifiers are numbers.
#include "pmukit/discovery/inventory_json.h"

#include "pmukit/util/text.h"

namespace pmukit::discovery {

namespace {

using ojson = nlohmann::ordered_json;

ojson hex_list(const std::vector<std::uint64_t>& v) {
  ojson a = ojson::array();
  for (auto x : v) a.push_back(hex(x));
  return a;
}

template <class T>
ojson opt_hex(const std::optional<T>& v) {
  return v ? ojson(hex(*v)) : ojson(nullptr);
}

ojson detail_json(const IntelUnit& u) {
  return ojson{{"type", u.type},
               {"box_id", u.box_id},
               {"access", access_name(u.access)},
               {"box_ctl", hex(u.box_ctl)},
               {"pci_device", u.pci_device ? ojson(u.pci_device->str()) : ojson(nullptr)},
               {"ctl", hex_list(u.ctl)},
               {"ctr", hex_list(u.ctr)},
               {"status", opt_hex(u.status)},
               {"fixed_ctl", opt_hex(u.fixed_ctl)},
               {"fixed_ctr", opt_hex(u.fixed_ctr)},
               {"filter", opt_hex(u.filter)},
               {"ctl_offset", u.ctl_offset},
               {"ctr_offset", u.ctr_offset},
               {"ctl_step", u.ctl_step},
               {"ctr_step", u.ctr_step},
               {"msr_cpu", u.msr_cpu},
               {"table", u.table},
               {"table_index", u.table_index},
               {"raw", ojson::array({hex(u.raw[0]), hex(u.raw[1]), hex(u.raw[2])})}};
}

ojson detail_json(const CoreSightUnit& u) {
  return ojson{{"base0", hex(u.base0)},
               {"base1", hex(u.base1)},
               {"dual_page", u.dual_page},
               {"atomic64", u.atomic64},
               {"pmcfgr", hex(u.pmcfgr)},
               {"pmcr", hex(u.pmcr)},
               {"pmiidr", hex(u.pmiidr)},
               {"pmiidr_source", u.pmiidr_source},
               {"implementer", u.implementer},
               {"product", u.product},
               {"cycle_counter", u.has_cycle_counter ? ojson(u.cycle_counter_index) : ojson(nullptr)},
               {"rc", u.rc >= 0 ? ojson(u.rc) : ojson(nullptr)},
               {"apmt", {{"id", u.apmt_id},
                         {"type", u.apmt_type},
                         {"flags", u.apmt_flags},
                         {"inst_primary", hex(u.apmt_inst_primary)},
                         {"inst_secondary", u.apmt_inst_secondary},
                         {"proc_affinity", u.apmt_proc_affinity},
                         {"impl_id", hex(u.apmt_impl_id)}}}};
}

ojson detail_json(const DwcUnit& u) {
  return ojson{{"root_port", u.root_port.str()},
               {"vendor", u.vendor},
               {"vsec_offset", u.vsec_offset},
               {"vsec_length", u.vsec_length},
               {"event_groups", u.event_groups}};
}

ojson detail_json(const T410Unit& u) {
  return ojson{{"hid", u.hid},
               {"acpi_path", u.acpi_path},
               {"instances", hex_list(u.instance_bases)},
               {"broadcast", opt_hex(u.broadcast_base)},
               {"region_size", u.region_size},
               {"peer", u.peer},
               {"exposed", u.exposed}};
}

}  // namespace

ojson to_json(const PmuUnit& u) {
  ojson j{{"name", u.name},         {"family", family_name(u.family)},
          {"type_name", u.type_name}, {"pmu_kind", u.pmu_kind},
          {"socket", u.socket},     {"die", u.die},
          {"counters", u.num_counters}, {"width", u.counter_width}};
  j["filters"] = ojson::array();
  for (const auto& f : u.filters) j["filters"].push_back({{"name", f.name}, {"format", f.format}, {"help", f.help}});
  j["notes"] = u.notes;
  std::visit([&](const auto& d) { j[std::string(family_name(u.family))] = detail_json(d); }, u.detail);
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
               {"skipped_units", t.skipped_units}};
}

ojson to_json(const Inventory& inv) {
  ojson j;
  j["platform"] = inv.platform.empty() ? ojson(nullptr)
                                       : ojson{{"name", inv.platform}, {"description", inv.platform_description}};
  j["intel_tables"] = ojson::array();
  for (std::size_t i = 0; i < inv.intel_tables.size(); ++i) j["intel_tables"].push_back(to_json(inv.intel_tables[i], i));
  j["units"] = ojson::array();
  for (const auto& u : inv.units) j["units"].push_back(to_json(u));
  j["warnings"] = inv.warnings;
  return j;
}

}  // namespace pmukit::discovery
