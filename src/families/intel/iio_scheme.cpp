// pmukit -- loading the Intel IIO stack mapping schemes (platforms/intel/iio_*.json).
#include "pmukit/families/intel/iio_scheme.h"

#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"

namespace pmukit::platform {

namespace {

using json = nlohmann::json;

unsigned number(const json& j, const std::string& where) {
  return static_cast<unsigned>(json_number(j, where));
}

IioRange range(const json& j, const std::string& where) {
  if (!j.is_array() || j.size() != 2) throw Error(fmt::format("{}: '{}' is not a [lo, hi] pair", where, j.dump()));
  IioRange r{number(j[0], where), number(j[1], where)};
  if (r.lo > r.hi) throw Error(fmt::format("{}: range {}-{} is reversed", where, r.lo, r.hi));
  return r;
}

// A PCI ID as platform data names one: 0xffff is what config space reads where there is no device
// (and 0x0000 no vendor), so an entry holding it would match absence.
std::uint16_t pci_id(const json& j, const std::string& where, bool vendor) {
  auto v = json_number(j, where);
  if (v >= 0xffff || (vendor && v == 0)) throw Error(fmt::format("{}: {:#x} is not a PCI ID", where, v));
  return static_cast<std::uint16_t>(v);
}

IioLocator locator(const json& j, const std::string& where) {
  IioLocator l;
  l.device_id = pci_id(j.at("device"), where + " device", false);
  if (j.contains("dev")) l.dev = number(j["dev"], where + " dev");
  if (j.contains("fn")) l.fn = number(j["fn"], where + " fn");
  return l;
}

IioPartRule rule(const json& j, const std::string& where) {
  IioPartRule r;
  r.what = json_string(j, "what", where, false);
  if (j.contains("root_ports")) {
    r.root_ports = true;
    r.below = true;
    r.devs = range(j["root_ports"], where + " root_ports");
    if (j.contains("part_by_id"))
      for (const auto& [id, part] : j["part_by_id"].items())
        r.part_by_id[pci_id(json(id), where + " part_by_id", false)] = number(part, where + " part_by_id");
    if (r.what.empty()) r.what = "root port";
    return r;
  }
  if (j.contains("bus_offsets")) r.bus_offsets = range(j["bus_offsets"], where + " bus_offsets");
  if (j.contains("devs")) r.devs = range(j["devs"], where + " devs");
  if (j.contains("fn")) r.fn = number(j["fn"], where + " fn");
  if (j.contains("vendor")) r.vendor = pci_id(j["vendor"], where + " vendor", true);
  for (const auto& id : j.value("ids", json::array())) r.ids.push_back(pci_id(id, where + " ids", false));
  for (const auto& p : j.value("parts", json::array())) r.parts.push_back(number(p, where + " parts"));
  if (r.parts.empty()) throw Error(where + ": a rule that is not a root-port rule needs \"parts\"");
  r.below = j.value("below", false);
  return r;
}

std::map<std::string, std::vector<IioPartRule>> layouts(const json& j, const std::string& where) {
  std::map<std::string, std::vector<IioPartRule>> out;
  for (const auto& [name, rules] : j.items()) {
    auto& list = out[name];
    unsigned k = 0;
    for (const auto& r : rules) list.push_back(rule(r, fmt::format("{} layout {} rule {}", where, name, k++)));
  }
  return out;
}

IioStackEntry stack(const json& j, const std::string& where) {
  IioStackEntry s;
  s.entry = number(j.at("entry"), where + " entry");
  std::string w = fmt::format("{} entry {}", where, s.entry);
  if (j.contains("pmu")) s.pmu = number(j["pmu"], w + " pmu");
  if (j.contains("part_of")) s.part_of = number(j["part_of"], w + " part_of");
  s.name = json_string(j, "name", w);
  s.layout = json_string(j, "layout", w, false);
  s.note = json_string(j, "note", w, false);
  return s;
}

// Stacks refer to layouts and parents that must exist; PMUs and entries are unique.
void check_table(const IioTable& t, const std::string& where) {
  std::set<unsigned> entries, pmus;
  for (const auto& s : t.stacks) {
    std::string w = fmt::format("{} table {} entry {}", where, t.name, s.entry);
    if (!entries.insert(s.entry).second) throw Error(w + ": listed twice");
    if (s.pmu && !pmus.insert(*s.pmu).second) throw Error(fmt::format("{}: PMU {} given to two stacks", w, *s.pmu));
    if (!s.layout.empty() && !t.layouts.count(s.layout))
      throw Error(fmt::format("{}: layout '{}' is not defined", w, s.layout));
  }
  for (const auto& s : t.stacks) {
    if (!s.part_of) continue;
    const auto* parent = t.entry(*s.part_of);
    if (!parent || !parent->pmu)
      throw Error(fmt::format("{} table {} entry {}: part_of {} names no stack with a PMU", where, t.name, s.entry,
                              *s.part_of));
  }
}

std::vector<IioTable> tables(const json& j, const std::map<std::string, std::vector<IioPartRule>>& common,
                             const std::string& where) {
  std::vector<IioTable> out;
  for (const auto& tj : j) {
    IioTable t;
    t.name = json_string(tj, "name", where + " table");
    std::string w = where + " table " + t.name;
    if (tj.contains("chop")) t.chop = number(tj["chop"], w + " chop");
    if (tj.contains("stacks_from")) {
      std::string from = json_string(tj, "stacks_from", w);
      const IioTable* base = nullptr;
      for (const auto& o : out)
        if (o.name == from) base = &o;
      if (!base) throw Error(fmt::format("{}: stacks_from '{}' names no earlier table", w, from));
      t.stacks = base->stacks;
    }
    for (const auto& s : tj.value("stacks", json::array())) t.stacks.push_back(stack(s, w));
    t.layouts = common;
    for (auto& [name, rules] : layouts(tj.value("layouts", json::object()), w)) t.layouts[name] = std::move(rules);
    check_table(t, where);
    out.push_back(std::move(t));
  }
  if (out.empty()) throw Error(where + ": no tables");
  return out;
}

void read_socket(IioMapScheme& s, const json& j, const std::string& where) {
  s.socket_from = json_string(j, "from", where);
  if (s.socket_from == "gidnidmap") {
    s.nodeid_register = number(j.at("nodeid"), where + " nodeid");
    s.gidnidmap_register = number(j.at("gidnidmap"), where + " gidnidmap");
  } else if (s.socket_from != "sad_control") {
    throw Error(fmt::format("{}: socket from '{}' is neither gidnidmap nor sad_control", where, s.socket_from));
  }
}

IioMapScheme scheme(const json& j, const std::string& file) {
  IioMapScheme s;
  s.name = json_string(j, "name", file + " iio map");
  std::string where = file + " iio map " + s.name;
  s.description = json_string(j, "description", where);
  s.source = json_string(j, "source", where, false);
  s.route = json_string(j, "route", where);
  s.locator = locator(j.at("locator"), where + " locator");
  if (s.route == "cpubusno") {
    for (const auto& r : j.at("cpubusno")) s.cpubusno.push_back(number(r, where + " cpubusno"));
    if (j.contains("cpubusno_valid")) s.cpubusno_valid = number(j["cpubusno_valid"], where + " cpubusno_valid");
    if (j.contains("cpubusno_function")) {
      const json& f = j["cpubusno_function"];
      s.cpubusno_function = {number(f.at("dev"), where + " cpubusno_function dev"),
                             number(f.at("fn"), where + " cpubusno_function fn")};
    }
  } else if (s.route != "sad_control") {
    throw Error(fmt::format("{}: route '{}' is neither cpubusno nor sad_control", where, s.route));
  }
  if (j.contains("sad_control")) s.sad_control = number(j["sad_control"], where + " sad_control");
  read_socket(s, j.at("socket"), where + " socket");
  if (s.socket_from == "sad_control" && !j.contains("sad_control"))
    throw Error(where + ": the socket comes from SAD_CONTROL_CFG but \"sad_control\" is not given");
  if (j.contains("zero_bus_pmu")) s.zero_bus_pmu = number(j["zero_bus_pmu"], where + " zero_bus_pmu");
  if (j.contains("chop")) {
    s.chop_device = locator(j["chop"], where + " chop");
    s.chop_register = number(j["chop"].at("register"), where + " chop register");
  }
  s.pmu_pattern = json_string(j, "pmu", where);
  if (j.contains("free_running")) {
    const json& f = j["free_running"];
    s.free_running_pattern = json_string(f, "pmu", where + " free_running");
    s.free_running_event = json_string(f, "event", where + " free_running");
    s.free_running_ports = number(f.at("ports"), where + " free_running ports");
  }
  s.pmu_kind = json_string(j, "pmu_kind", where);
  const json& f = j.at("filter");
  s.ch_mask_term = json_string(f, "ch_mask", where + " filter");
  s.fc_mask_term = json_string(f, "fc_mask", where + " filter");
  s.fc_mask = number(f.at("fc_mask_value"), where + " filter fc_mask_value");
  s.example_event = json_string(j.at("example"), "event", where + " example");
  s.example_what = json_string(j.at("example"), "what", where + " example");
  s.kernel_mapping = j.value("kernel_mapping", false);
  if (j.contains("iio_box_type")) s.iio_box_type = static_cast<std::uint16_t>(number(j["iio_box_type"], where));
  s.tables = tables(j.at("tables"), layouts(j.value("layouts", json::object()), where), where);
  if (s.tables.size() > 1 && !s.chop_device)
    throw Error(where + ": several tables but no \"chop\" register to choose between them");
  return s;
}

}  // namespace

const IioStackEntry* IioTable::entry(unsigned e) const {
  for (const auto& s : stacks)
    if (s.entry == e) return &s;
  return nullptr;
}

const IioStackEntry* IioTable::by_pmu(unsigned pmu) const {
  for (const auto& s : stacks)
    if (s.pmu == pmu) return &s;
  return nullptr;
}

const IioTable* IioMapScheme::table_for(std::optional<unsigned> chop) const {
  if (tables.size() == 1) return &tables.front();
  for (const auto& t : tables)
    if (chop && t.chop == chop) return &t;
  return nullptr;
}

void load_iio_maps(const json& doc, const std::string& where, std::deque<IioMapScheme>& out) {
  if (!doc.contains("iio_maps")) return;
  for (const auto& j : doc["iio_maps"]) {
    auto s = scheme(j, where);
    for (const auto& o : out)
      if (o.name == s.name) throw Error(fmt::format("{}: iio map '{}' defined twice", where, s.name));
    out.push_back(std::move(s));
  }
}

}  // namespace pmukit::platform
