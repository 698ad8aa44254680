// pmukit -- loading platforms/*.json into the platform database.
#include "pmukit/platform/database.h"

#include <algorithm>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/platform/embedded.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"
#include "pmukit/util/text.h"

namespace pmukit::platform {

namespace {

using json = nlohmann::json;

CpuModel parse_cpu(const json& j, const std::string& where) {
  CpuModel c;
  c.vendor = json_string(j, "vendor", where);
  if (c.vendor.empty()) throw Error(where + ": a CPU model needs a vendor (an empty one would match Arm's)");
  c.family = static_cast<unsigned>(json_number(j.at("family"), where + " family"));
  for (const auto& m : j.at("models")) c.models.push_back(static_cast<unsigned>(json_number(m, where + " models")));
  c.name = json_string(j, "name", where);
  c.description = json_string(j, "description", where);
  c.intel_uncore = json_string(j, "intel_uncore", where, false);
  c.iio_map = json_string(j, "iio_map", where, false);
  c.amd_uncore = json_string(j, "amd_uncore", where, false);
  return c;
}

// A box type's filter register (IntelFilter).
IntelFilter parse_filter(const json& f, const std::string& where) {
  IntelFilter r{static_cast<int>(json_number(f.at("term_config"), where)), json_number(f.at("mask"), where + " mask"),
                static_cast<std::uint32_t>(json_number(f.at("msr"), where + " msr")),
                static_cast<std::uint32_t>(json_number(f.at("box_stride"), where + " box_stride"))};
  if (f.contains("enable")) r.enable_bit = static_cast<int>(json_number(f["enable"], where + " enable"));
  if (f.contains("high_offset"))
    r.high_offset = static_cast<std::uint32_t>(json_number(f["high_offset"], where + " high_offset"));
  for (const auto& s : f.value("selectors", json::array())) {
    IntelFilterSelector sel{json_number(s.at("event"), where + " selector event"),
                            json_number(s.at("event_mask"), where + " selector event_mask"),
                            json_number(s.at("mask"), where + " selector mask")};
    if (sel.mask & ~r.mask)
      throw Error(fmt::format("{}: selector mask {:#x} has bits outside the filter's mask", where, sel.mask));
    r.selectors.push_back(sel);
  }
  return r;
}

IntelBoxType parse_box(const json& j, const std::string& where) {
  IntelBoxType b;
  b.type = static_cast<std::uint16_t>(json_number(j.at("type"), where + " type"));
  b.name = json_string(j, "name", where);
  b.pmu_kind = json_string(j, "pmu", where);
  if (j.contains("ctl_step")) b.ctl_step = static_cast<unsigned>(json_number(j["ctl_step"], where + " ctl_step"));
  if (j.contains("unreliable")) b.unreliable = json_string(j, "unreliable", where);
  if (j.contains("ignored_in"))
    for (const auto& s : j["ignored_in"]) b.ignored_in.push_back(s.get<std::string>());
  b.ignore_note = json_string(j, "ignore_note", where, false);
  b.counter_constraints_name = json_string(j, "counter_constraints", where, false);
  if (j.contains("filter")) b.filter = parse_filter(j["filter"], where + " filter");
  if (j.contains("fixed")) {
    const auto& f = j["fixed"];
    b.fixed = IntelFixedCounter{json_number(f.at("ctl"), where + " fixed ctl"),
                                json_number(f.at("ctr"), where + " fixed ctr"), json_string(f, "note", where, false)};
  }
  if (j.contains("kernel")) b.kernel = KernelBoxes::from_json(j["kernel"], where + " kernel");
  return b;
}

// An IIO map's filter terms are formats of its PMU kind, and every part it gives has a ch_mask bit.
void check_iio_filters(const Database& db, const IioMapScheme& m) {
  std::string where = "platforms: iio map " + m.name;
  const PmuKind* kind = db.pmu_kind(m.pmu_kind);
  if (!kind) throw Error(fmt::format("{}: unknown pmu kind '{}'", where, m.pmu_kind));
  for (const auto& term : {m.ch_mask_term, m.fc_mask_term})
    if (!kind->formats.count(term))
      throw Error(fmt::format("{}: pmu kind '{}' has no format '{}'", where, m.pmu_kind, term));
  unsigned width = syntax::format_width(syntax::parse_format(m.ch_mask_term, kind->formats.at(m.ch_mask_term)));
  for (const auto& t : m.tables)
    for (const auto& [name, rules] : t.layouts)
      for (const auto& r : rules) {
        unsigned top = r.root_ports ? r.devs.hi - r.devs.lo : 0;
        for (unsigned p : r.parts) top = std::max(top, p);
        for (const auto& [id, p] : r.part_by_id) top = std::max(top, p);
        if (top >= width)
          throw Error(fmt::format("{} table {} layout {}: part {} has no bit in {} ({} bits)", where, t.name, name, top,
                                  m.ch_mask_term, width));
      }
}

IntelUncore parse_intel_uncore(const json& doc, const std::string& where) {
  IntelUncore u;
  u.name = json_string(doc, "name", where);
  u.description = json_string(doc, "description", where);
  u.unnamed_pmu = json_string(doc, "unnamed_pmu", where);
  for (const auto& b : doc["box_types"]) {
    auto box = parse_box(b, fmt::format("{} box type {}", where, b.value("name", "?")));
    if (!u.box_types.emplace(box.type, box).second)
      throw Error(fmt::format("{}: box type {} listed twice", where, box.type));
  }
  if (doc.contains("cha_count")) {
    u.cha_count_type = static_cast<std::uint16_t>(json_number(doc["cha_count"].at("type"), where));
    u.cha_count_msr = static_cast<std::uint32_t>(json_number(doc["cha_count"].at("msr"), where));
  }
  u.clear_global_freeze = doc.contains("global_init") && doc["global_init"].value("clear_freeze_all", false);
  if (doc.contains("pci_socket_map")) u.pci_socket_map = PciSocketMap::from_json(doc["pci_socket_map"], where);
  return u;
}

// A kind's formats: "formats" as sysfs shows them, or "format_group", the kernel's attribute
// identifiers looked up in the file's "format_attrs" table (each: the sysfs name and its bits).
void parse_formats(const json& p, const json& attrs, const std::string& where, PmuKind& k) {
  if (p.contains("formats") == p.contains("format_group")) throw Error(where + ": give either formats or format_group");
  if (p.contains("formats")) {
    for (const auto& [name, fmt_text] : p["formats"].items()) k.formats[name] = fmt_text.get<std::string>();
    return;
  }
  for (const auto& id : p["format_group"]) {
    const std::string a = id.get<std::string>();
    if (!attrs.contains(a)) throw Error(fmt::format("{}: format_group names unknown format attribute '{}'", where, a));
    const std::string name = json_string(attrs[a], "name", where + " format attribute " + a);
    if (!k.formats.emplace(name, json_string(attrs[a], "bits", where + " format attribute " + a)).second)
      throw Error(fmt::format("{}: format_group gives '{}' twice (attribute {})", where, name, a));
  }
}

PmuKind parse_pmu_kind(const json& p, const json& attrs, std::string where) {
  PmuKind k;
  k.kind = json_string(p, "kind", where);
  where += " pmu " + k.kind;
  k.description = json_string(p, "description", where, false);
  if (p.contains("platform"))
    k.platform = PmuKind::Platform{json_string(p["platform"], "name", where + " platform"),
                                   json_string(p["platform"], "description", where + " platform")};
  parse_formats(p, attrs, where, k);
  if (p.contains("event_mask"))
    k.config_mask = json_number(p["event_mask"], where + " event_mask") |
                    json_number(p.at("event_mask_ext"), where + " event_mask_ext") << 32;
  const json format_help = p.value("format_help", json::object());
  for (const auto& [name, help] : format_help.items()) {
    if (!k.formats.count(name)) throw Error(fmt::format("{}: format_help names unknown format '{}'", where, name));
    k.format_help[name] = help.get<std::string>();
  }
  for (const auto& [name, ev] : p.at("events").items()) {
    syntax::EventAlias a;
    a.name = name;
    a.terms = json_string(ev, "terms", where + " event " + name);
    a.scale = ev.value("scale", 1.0);
    a.unit = ev.value("unit", "");
    k.event_help[name] = ev.value("description", "");
    k.events[name] = a;
  }
  if (p.contains("coresight")) k.coresight = CoreSightProgramming::from_json(p["coresight"], where);
  return k;
}

}  // namespace

namespace {

// The top-level keys each part's files may hold ("about" is every file's prose).
bool key_belongs(std::string_view key, int part) {
  static const std::vector<std::vector<std::string_view>> keys = {
      {"cpus"},
      {"name", "description", "unnamed_pmu", "box_types", "global_init", "cha_count", "pci_socket_map", "iio_maps",
       "counter_constraints"},
      {"pmus", "format_attrs"},
      {"coresight", "pcie_rc_maps", "t410_blocks", "designware_rasdes", "cmn"}};
  if (key == "about") return true;
  for (auto k : keys.at(static_cast<std::size_t>(part)))
    if (k == key) return true;
  return false;
}

// The PMU kinds a pmus/ file defines, found without parsing it: every "kind": "NAME" (load()
// then checks that the file defined exactly these).
std::vector<std::string> scan_kinds(std::string_view text) {
  std::vector<std::string> kinds;
  for (auto at = text.find("\"kind\""); at != std::string_view::npos; at = text.find("\"kind\"", at + 6)) {
    auto colon = text.find_first_not_of(" \t\r\n", at + 6);
    if (colon == std::string_view::npos || text[colon] != ':') continue;
    auto open = text.find_first_not_of(" \t\r\n", colon + 1);
    if (open == std::string_view::npos || text[open] != '"') continue;
    auto close = text.find('"', open + 1);
    if (close == std::string_view::npos) break;
    kinds.emplace_back(text.substr(open + 1, close - open - 1));
  }
  return kinds;
}

// The files of perf's uncore events (platforms/perfmon/), which the events layer parses.
constexpr std::string_view kPerfmonDir = "perfmon/";

// The embedded files the database is made of: not the bundled machines, the metric catalog, the
// simulator's rates or perf's event lists, which their own loaders read, nor the index of the files.
bool database_file(std::string_view path) {
  return path.ends_with(".json") && !path.starts_with("machines/") && !path.starts_with("metrics/") &&
         !path.starts_with("sim/") && !path.starts_with(kPerfmonDir) && path != PlatformIndex::kPath;
}

[[noreturn]] void index_names_wrong_file(std::string_view name, std::string_view file) {
  throw Error(fmt::format("platforms/{}: says '{}' is defined in platforms/{}, which does not define it",
                          PlatformIndex::kPath, name, file));
}

}  // namespace

struct Database::Pending {
  struct File {
    std::string path;
    std::string_view text;           // embedded: lives as long as the program
    std::vector<std::string> kinds;  // pmus/ files: the kinds scan_kinds() found
  };
  std::mutex mutex;
  std::vector<File> files[4];                                    // by Part, not yet parsed
  PlatformIndex index;                                           // which file defines what (platforms/index.json)
  std::deque<std::string> owned;                                 // on_demand(): the texts `files` point into
  std::map<std::string, std::string_view, std::less<>> perfmon;  // perfmon/ files, by path

  void add(std::string_view path, std::string_view text) {
    if (path == PlatformIndex::kPath) index = PlatformIndex::parse(text);
    if (path.starts_with(kPerfmonDir)) perfmon.emplace(path, text);
    if (!database_file(path)) return;
    const Part part = part_of(path);
    files[static_cast<int>(part)].push_back(
        {std::string(path), text, part == Part::Pmus ? scan_kinds(text) : std::vector<std::string>{}});
  }
};

Database::Database() = default;
Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

Database::Part Database::part_of(std::string_view path) {
  if (path == "cpus.json") return Part::Cpus;
  if (path.starts_with("intel/")) return Part::Intel;
  if (path.starts_with("pmus/")) return Part::Pmus;
  return Part::Soc;
}

void Database::load(const std::string& path, const std::string& body, bool lazy) {
  const std::string where = "platforms/" + path;
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
  if (lazy && doc.is_object())
    for (const auto& [key, value] : doc.items())
      if (!key_belongs(key, static_cast<int>(part_of(path))))
        throw Error(fmt::format("{}: '{}' does not belong in this file's directory (cpus.json: cpus; intel/: Intel "
                                "uncore tables and IIO maps; pmus/: PMU kinds; others: SoC data)",
                                where, key));
  try {
    if (doc.contains("cpus"))
      for (const auto& c : doc["cpus"]) cpus_.push_back(parse_cpu(c, where));
    if (doc.contains("box_types")) {
      IntelUncore u = parse_intel_uncore(doc, where);
      intel_[u.name] = std::move(u);
    }
    if (doc.contains("pmus")) {
      const json attrs = doc.contains("format_attrs") ? doc["format_attrs"] : json::object();
      for (const auto& p : doc["pmus"]) {
        PmuKind k = parse_pmu_kind(p, attrs, where);
        if (!pmus_.emplace(k.kind, k).second)
          throw Error(fmt::format("{} pmu {}: pmu kind defined twice", where, k.kind));
      }
    }
    load_soc_data(doc, where, soc_);
    load_iio_maps(doc, where, iio_maps_);
    load_counter_constraints(doc, where, constraints_);
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
}

Database Database::from_files(const std::vector<std::pair<std::string, std::string>>& files) {
  Database db;
  for (const auto& [path, body] : files) db.load(path, body);
  // Cross-references must resolve: every box type names a known PMU kind.
  for (const auto& [name, u] : db.intel_) {
    if (!db.pmu_kind(u.unnamed_pmu))
      throw Error(fmt::format("platforms: intel uncore '{}' names unknown pmu kind '{}'", name, u.unnamed_pmu));
    for (const auto& [type, b] : u.box_types)
      if (!db.pmu_kind(b.pmu_kind))
        throw Error(fmt::format("platforms: intel uncore '{}' box type {} names unknown pmu kind '{}'", name, type,
                                b.pmu_kind));
  }
  for (auto& [name, u] : db.intel_) db.resolve_counter_constraints(u);
  for (const auto& [what, kind] : soc_pmu_references(db.soc_))
    if (!db.pmu_kind(kind)) throw Error(fmt::format("platforms: {} names unknown pmu kind '{}'", what, kind));
  for (const auto& c : db.cpus_) {
    if (!c.intel_uncore.empty() && !db.intel_uncore(c.intel_uncore))
      throw Error(fmt::format("platforms: cpu '{}' names unknown intel uncore table '{}'", c.name, c.intel_uncore));
    if (!c.iio_map.empty() && !db.iio_map(c.iio_map))
      throw Error(fmt::format("platforms: cpu '{}' names unknown iio map '{}'", c.name, c.iio_map));
  }
  for (const auto& m : db.iio_maps_) check_iio_filters(db, m);
  return db;
}

std::vector<std::pair<std::string, std::string>> Database::builtin_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& f : embedded_files())
    if (database_file(f.path)) files.emplace_back(std::string(f.path), std::string(f.data));
  return files;
}

const Database& Database::builtin() {
  static const Database db = [] {
    Database d;
    d.pending_ = std::make_unique<Pending>();
    for (const auto& f : embedded_files()) d.pending_->add(f.path, f.data);
    return d;
  }();
  return db;
}

Database Database::on_demand(std::vector<std::pair<std::string, std::string>> files) {
  Database d;
  d.pending_ = std::make_unique<Pending>();
  for (auto& [path, text] : files) d.pending_->add(path, d.pending_->owned.emplace_back(std::move(text)));
  return d;
}

// The lock every accessor holds while builtin() still has files to parse: a lookup must not
// race with another thread's parse inserting into the same map (pmu-exporter serves and samples
// on two threads).
std::unique_lock<std::mutex> Database::lock_pending() const {
  return pending_ ? std::unique_lock(pending_->mutex) : std::unique_lock<std::mutex>();
}

// Parses the pending files of one part (all of them), once. The caller holds lock_pending().
void Database::parse_part(Part part) const {
  if (!pending_) return;
  auto& files = pending_->files[static_cast<int>(part)];
  for (const auto& f : files) const_cast<Database*>(this)->load(f.path, std::string(f.text), true);
  files.clear();
}

// Parses the file at `path` if it is still pending, once. The caller holds lock_pending().
void Database::parse_file(std::string_view path) const {
  if (!pending_) return;
  auto& files = pending_->files[static_cast<int>(part_of(path))];
  auto f = std::find_if(files.begin(), files.end(), [&](const auto& file) { return file.path == path; });
  if (f == files.end()) return;
  const_cast<Database*>(this)->load(f->path, std::string(f->text), true);
  files.erase(f);
}

// Parses the file `index` names for `name`; false when it names none (or everything is parsed).
// The caller holds lock_pending().
bool Database::parse_indexed(const PlatformIndex::Files& index, std::string_view name) const {
  if (!pending_) return false;
  auto it = index.find(name);
  if (it == index.end()) return false;
  parse_file(it->second);
  return true;
}

// Parses the pmus/ file that defines `kind`, if one is pending. The caller holds lock_pending().
void Database::parse_file_of_kind(std::string_view kind) const {
  if (!pending_ || pmus_.count(kind)) return;
  auto& files = pending_->files[static_cast<int>(Part::Pmus)];
  for (auto f = files.begin(); f != files.end(); ++f) {
    if (std::find(f->kinds.begin(), f->kinds.end(), kind) == f->kinds.end()) continue;
    const auto before = pmus_.size();
    const_cast<Database*>(this)->load(f->path, std::string(f->text), true);
    if (pmus_.size() - before != f->kinds.size())
      throw Error(fmt::format("platforms/{}: defines {} PMU kinds, but {} \"kind\" keys were found in its text",
                              f->path, pmus_.size() - before, f->kinds.size()));
    files.erase(f);
    return;
  }
}

const std::vector<CpuModel>& Database::cpus() const {
  auto lock = lock_pending();
  parse_part(Part::Cpus);
  return cpus_;
}

const SocData& Database::soc() const {
  auto lock = lock_pending();
  parse_part(Part::Soc);
  return soc_;
}

const SocData& Database::soc(SocSection section) const {
  auto lock = lock_pending();
  if (!pending_) return soc_;
  auto it = pending_->index.soc.find(PlatformIndex::kSocSections[static_cast<int>(section)]);
  if (it != pending_->index.soc.end())
    for (const auto& path : it->second) parse_file(path);
  return soc_;
}

std::optional<Database::DataFile> Database::perfmon_events_file(std::string_view cpu_model) const {
  if (!pending_) return std::nullopt;  // set at construction, never changed: no lock needed
  auto it = pending_->index.perfmon_events.find(cpu_model);
  if (it == pending_->index.perfmon_events.end()) return std::nullopt;
  auto file = pending_->perfmon.find(it->second);
  if (file == pending_->perfmon.end())
    throw Error(fmt::format("platforms/{}: names platforms/{} for the uncore events of '{}', which is not there",
                            PlatformIndex::kPath, it->second, cpu_model));
  return DataFile{it->second, file->second};
}

const CpuModel* Database::match_cpu(std::string_view vendor, unsigned family, unsigned model) const {
  if (vendor.empty()) return nullptr;  // no vendor_id line (Arm): no x86 model can match
  for (const auto& c : cpus())
    if (c.vendor == vendor && c.family == family)
      for (unsigned m : c.models)
        if (m == model) return &c;
  return nullptr;
}

// A table is parsed with its file the first time it is asked for, and its box types get their
// constraint tables then (before anyone holds a pointer to it).
const IntelUncore* Database::intel_uncore(std::string_view name) const {
  auto lock = lock_pending();
  auto it = intel_.find(name);
  if (it != intel_.end() || !pending_) return it == intel_.end() ? nullptr : &it->second;
  if (!parse_indexed(pending_->index.intel_uncore, name)) return nullptr;
  it = intel_.find(name);
  if (it == intel_.end()) index_names_wrong_file(name, pending_->index.intel_uncore.find(name)->second);
  resolve_counter_constraints(it->second);
  return &it->second;
}

const IioMapScheme* Database::iio_map(std::string_view name) const {
  auto lock = lock_pending();
  const bool indexed = pending_ && parse_indexed(pending_->index.iio_maps, name);
  for (const auto& m : iio_maps_)
    if (m.name == name) return &m;
  if (indexed) index_names_wrong_file(name, pending_->index.iio_maps.find(name)->second);
  return nullptr;
}

void Database::resolve_counter_constraints(IntelUncore& u) const {
  for (auto& [type, b] : u.box_types) {
    if (b.counter_constraints_name.empty()) continue;
    const CounterConstraints* c = find_constraints(b.counter_constraints_name);
    if (!c)
      throw Error(fmt::format("platforms: intel uncore '{}' box type {} names unknown counter_constraints '{}'", u.name,
                              type, b.counter_constraints_name));
    b.constraints = *c;
  }
}

// The constraint table named `name`, parsing the file the index names for it. The caller holds
// lock_pending().
const CounterConstraints* Database::find_constraints(std::string_view name) const {
  const bool indexed = pending_ && parse_indexed(pending_->index.counter_constraints, name);
  for (const auto& c : constraints_)
    if (c.name == name) return &c;
  if (indexed) index_names_wrong_file(name, pending_->index.counter_constraints.find(name)->second);
  return nullptr;
}

const CounterConstraints* Database::counter_constraints(std::string_view name) const {
  auto lock = lock_pending();
  return find_constraints(name);
}

const PmuKind* Database::pmu_kind(std::string_view kind) const {
  auto lock = lock_pending();
  parse_file_of_kind(kind);
  auto it = pmus_.find(kind);
  return it == pmus_.end() ? nullptr : &it->second;
}

}  // namespace pmukit::platform
