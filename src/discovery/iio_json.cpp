// pmukit -- the Intel IIO stack mapping as JSON.
#include "pmukit/discovery/iio_json.h"

#include <fmt/format.h>

#include "pmukit/util/text.h"

namespace pmukit::discovery {

using ojson = nlohmann::ordered_json;

namespace {

ojson nullable(const std::string& s) {
  return s.empty() ? ojson(nullptr) : ojson(s);
}

}  // namespace

ojson to_json(const IioTopology& t) {
  ojson j{{"scheme", t.scheme->name},
          {"description", t.scheme->description},
          {"route", t.route},
          {"table", t.table ? ojson(t.table->name) : ojson(nullptr)},
          {"table_source", nullable(t.table_source)},
          {"config_reads", t.config_reads}};
  j["stacks"] = ojson::array();
  for (const auto& s : t.stacks)
    j["stacks"].push_back({{"socket", s.socket},
                           {"die", s.die},
                           {"domain", fmt::format("{:04x}", s.domain)},
                           {"root_bus", fmt::format("{:02x}", s.root_bus)},
                           {"entry", s.entry},
                           {"name", s.name},
                           {"pmu", nullable(s.pmu_name)},
                           {"free_running", nullable(s.free_running)},
                           {"part_of", s.parent ? ojson(t.stacks[*s.parent].entry) : ojson(nullptr)},
                           {"source", s.source},
                           {"kernel", nullable(s.kernel)}});
  j["warnings"] = t.warnings;
  return j;
}

ojson to_json(const IioDeviceMap& r, const IioTopology& t, const std::string& name, const KernelPmus& kernel) {
  ojson j{{"device", r.device.str()},
          {"name", name},
          {"kind", r.kind},
          {"root_port", r.root_port ? ojson(r.root_port->str()) : ojson(nullptr)}};
  if (r.stack) {
    const auto& s = *r.stack;
    j["mapping"] = {{"scheme", t.scheme->name},
                    {"socket", s.socket},
                    {"die", s.die},
                    {"domain", fmt::format("{:04x}", s.domain)},
                    {"root_bus", fmt::format("{:02x}", s.root_bus)},
                    {"stack", s.name},
                    {"entry", s.entry},
                    {"pmu", r.pmu},
                    {"free_running", nullable(r.free_running)},
                    {"unit", r.unit ? ojson(r.unit->name) : ojson(nullptr)},
                    {"unit_table", nullable(r.unit_table)},
                    {"anchor", r.anchor ? ojson(r.anchor->str()) : ojson(nullptr)},
                    {"parts", r.parts},
                    {"part_what", nullable(r.part_what)},
                    {"ch_mask", hex(r.ch_mask)},
                    {"fc_mask", hex(r.fc_mask)},
                    {"ch_mask_format", nullable(r.ch_mask_format)},
                    {"fc_mask_format", nullable(r.fc_mask_format)},
                    {"filter_config", hex(r.filter_config)},
                    {"source", s.source},
                    {"table", t.table_source}};
  }
  if (!r.error.empty()) j["error"] = r.error;
  if (r.parts.empty()) return j;
  j["filters"] = ojson::array();
  for (const auto& f : r.filters)
    j["filters"].push_back({{"pmu", f.pmu},
                            {"terms", f.terms},
                            {"scope", f.scope},
                            {"example", f.example},
                            {"registered", kernel.present ? ojson(kernel.has(f.pmu)) : ojson(nullptr)}});
  return j;
}

}  // namespace pmukit::discovery
