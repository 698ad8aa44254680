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
  ojson pmpidr = ojson::array();
  for (auto v : u.pmpidr) pmpidr.push_back(hex(v));
  return ojson{{"base0", hex(u.base0)},
               {"base1", hex(u.base1)},
               {"dual_page", u.dual_page},
               {"atomic64", u.atomic64},
               {"pmcfgr", hex(u.pmcfgr)},
               {"pmcr", hex(u.pmcr)},
               {"pmiidr", hex(u.pmiidr)},
               {"pmiidr_source", u.pmiidr_source},
               {"pmiidr_register", hex(u.pmiidr_register)},
               {"pmpidr", pmpidr},
               {"implementer", u.implementer},
               {"product", u.product},
               {"kernel_module", u.kernel_module},
               {"cycle_counter", u.has_cycle_counter ? ojson(u.cycle_counter_index) : ojson(nullptr)},
               {"rc", u.rc >= 0 ? ojson(u.rc) : ojson(nullptr)},
               {"rc_source", u.rc_source.empty() ? ojson(nullptr) : ojson(u.rc_source)},
               {"cpus", u.cpus},
               {"numa_node", u.numa_node >= 0 ? ojson(u.numa_node) : ojson(nullptr)},
               {"platform_device", u.platform_device},
               {"acpi_device", u.acpi_device.empty() ? ojson(nullptr) : ojson(u.acpi_device)},
               {"kernel_pmu", u.kernel_pmu.empty() ? ojson(nullptr) : ojson(u.kernel_pmu)},
               {"mapped_through", u.mapped_through},
               {"apmt",
                {{"id", u.apmt_id},
                 {"type", u.apmt_type},
                 {"flags", u.apmt_flags},
                 {"inst_primary", hex(u.apmt_inst_primary)},
                 {"inst_secondary", u.apmt_inst_secondary},
                 {"proc_affinity", u.apmt_proc_affinity},
                 {"impl_id", hex(u.apmt_impl_id)}}}};
}

ojson detail_json(const DwcUnit& u) {
  ojson regs = ojson::array();
  for (const auto& r : u.registers) regs.push_back({{"name", r.name}, {"offset", hex(r.offset)}});
  return ojson{{"root_port", u.root_port.str()},
               {"vendor", hex(u.vendor, 4)},
               {"vendor_name", u.vendor_name},
               {"device", hex(u.device, 4)},
               {"sbdf", hex(u.sbdf)},
               {"vsec_offset", hex(u.vsec_offset)},
               {"vsec_length", hex(u.vsec_length)},
               {"vsec_rev", u.vsec_rev},
               {"lanes", u.lanes ? ojson(u.lanes) : ojson(nullptr)},
               {"registers", regs},
               {"event_groups", u.event_groups}};
}

ojson detail_json(const T410Unit& u) {
  ojson regs = ojson::object();
  for (const auto& [name, off] : u.registers) regs[name] = hex(off);
  return ojson{{"hid", u.hid},
               {"interface", u.interface},
               {"acpi_device", u.acpi_device},
               {"uid", u.uid},
               {"acpi_path", u.acpi_path},
               {"instances", hex_list(u.instance_bases)},
               {"broadcast", opt_hex(u.broadcast_base)},
               {"region_size", u.region_size ? ojson(hex(u.region_size)) : ojson(nullptr)},
               {"peer", u.peer},
               {"exposed", u.exposed},
               {"ranges_listed", u.ranges_listed},
               {"resources_source", u.resources_source},
               {"registers", regs}};
}

ojson detail_json(const CmnUnit& u) {
  return to_json(u);
}

}  // namespace

ojson to_json(const PmuUnit& u) {
  ojson j{{"name", u.name},
          {"family", family_name(u.family)},
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
