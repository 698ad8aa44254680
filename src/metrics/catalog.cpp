// pmukit -- the metric catalog: reads and checks platforms/metrics/*.json.
#include "pmukit/metrics/catalog.h"

#include <algorithm>
#include <array>
#include <initializer_list>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::metrics {

using nlohmann::json;

namespace {

// The units a metric may be reported in. A closed list, so that "GBps" or "GB" is caught in review
// by a failing test rather than printed next to a number.
constexpr std::array<std::string_view, 13> kUnits = {"GB/s",    "MB/s",           "%",     "ns",   "GHz",
                                                     "cycles",  "requests/cycle", "ratio", "MPKI", "instructions/cycle",
                                                     "GFLOP/s", "events/s",       "cores"};

[[noreturn]] void fail(const std::string& where, std::string_view reason) {
  throw UsageError(fmt::format("{}: {}", where, reason));
}

// `j` must be an object with every key of `required` and no key outside `required` + `optional`.
void check_object(const json& j, const std::string& where, std::initializer_list<std::string_view> required,
                  std::initializer_list<std::string_view> optional = {}) {
  if (!j.is_object()) fail(where, "must be a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    auto known = [&](std::initializer_list<std::string_view> keys) {
      return std::find(keys.begin(), keys.end(), it.key()) != keys.end();
    };
    if (!known(required) && !known(optional)) fail(where, fmt::format("unknown key '{}'", it.key()));
  }
  for (std::string_view key : required)
    if (!j.contains(key)) fail(where, fmt::format("missing key '{}'", key));
}

std::string text(const json& obj, std::string_view key, const std::string& where) {
  const json& v = obj.at(key);
  if (!v.is_string() || v.get_ref<const std::string&>().empty())
    fail(where, fmt::format("'{}' must be a non-empty string", key));
  return v.get<std::string>();
}

std::vector<std::string> text_list(const json& obj, std::string_view key, const std::string& where) {
  std::vector<std::string> out;
  if (!obj.contains(key)) return out;
  const json& v = obj.at(key);
  if (!v.is_array()) fail(where, fmt::format("'{}' must be an array of strings", key));
  for (const json& item : v) {
    if (!item.is_string() || item.get_ref<const std::string&>().empty())
      fail(where, fmt::format("'{}' must be an array of non-empty strings", key));
    out.push_back(item.get<std::string>());
  }
  return out;
}

bool is_snake_case(std::string_view s) {
  if (s.empty() || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

json parse(std::string_view path, std::string_view data) {
  try {
    return json::parse(data.begin(), data.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too large (406)
    throw UsageError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

std::string schema_of(std::string_view path, const json& j) {
  std::string where(path);
  if (!j.is_object() || !j.contains("schema") || !j.at("schema").is_string())
    fail(where, fmt::format("no \"schema\" (\"{}\" or \"{}\")", kMetricsSchema, kPmuTypesSchema));
  std::string schema = j.at("schema").get<std::string>();
  if (schema != kMetricsSchema && schema != kPmuTypesSchema)
    fail(where,
         fmt::format("unknown schema '{}' (expected \"{}\" or \"{}\")", schema, kMetricsSchema, kPmuTypesSchema));
  return schema;
}

// "uncore_m2m/event=0x21,umask=0x301/": an event of another PMU type than the metric's, as
// {"uncore_m2m", "event=0x21,umask=0x301"}; {"", event} for one on the metric's PMU.
std::pair<std::string, std::string> split_pmu_event(const std::string& e) {
  auto slash = e.find('/');
  if (slash == std::string::npos || e.size() < slash + 2 || e.back() != '/') return {"", e};
  return {e.substr(0, slash), e.substr(slash + 1, e.size() - slash - 2)};
}

// A variable's events, each checked against its PMU type: the metric's, or the one its
// "PMU/TERMS/" names (every event of the variable on that one PMU).
void bind_events(const Catalog& catalog, const PmuType& type, const std::vector<std::string>& texts,
                 const std::string& where, EventBinding& b) {
  for (const auto& text : texts) {
    auto [pmu, e] = split_pmu_event(text);
    if (&text != &texts.front() && pmu != b.pmu)
      fail(where, fmt::format("event variable '{}': its events are on different PMUs", b.variable));
    b.pmu = pmu;
    const PmuType* on = pmu.empty() ? &type : catalog.find_pmu_type(pmu);
    if (!on || pmu.find('%') != std::string::npos)
      fail(where, fmt::format("event '{}' of '{}': unknown PMU '{}' (PMU types are declared in a \"{}\" file)", text,
                              b.variable, pmu, kPmuTypesSchema));
    if (std::string why = on->check_event(e); !why.empty())
      fail(where, fmt::format("event '{}' of '{}': {}", text, b.variable, why));
    b.events.push_back(std::move(e));
  }
}

std::vector<EventBinding> read_events(const Catalog& catalog, const json& m, const PmuType& type,
                                      const std::string& where) {
  const json& events = m.at("events");
  if (!events.is_object() || events.empty()) fail(where, "'events' must be an object of variable: event(s)");
  std::vector<EventBinding> out;
  for (auto it = events.begin(); it != events.end(); ++it) {
    EventBinding b{it.key(), {}, {}};
    std::vector<std::string> texts;
    if (it->is_string()) {
      texts.push_back(it->get<std::string>());
    } else if (it->is_array() && !it->empty() &&
               std::all_of(it->begin(), it->end(), [](const json& e) { return e.is_string(); })) {
      for (const json& e : *it) texts.push_back(e.get<std::string>());
    } else {
      fail(where, fmt::format("event variable '{}' must be an event string or a non-empty array of them", b.variable));
    }
    bind_events(catalog, type, texts, where, b);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<Parameter> read_parameters(const json& m, const std::string& where) {
  std::vector<Parameter> out;
  if (!m.contains("parameters")) return out;
  const json& params = m.at("parameters");
  if (!params.is_object()) fail(where, "'parameters' must be an object of name: {default, unit, description}");
  for (auto it = params.begin(); it != params.end(); ++it) {
    std::string pwhere = fmt::format("{}: parameter '{}'", where, it.key());
    check_object(*it, pwhere, {"default", "unit", "description"});
    if (!it->at("default").is_number()) fail(pwhere, "'default' must be a number");
    out.push_back(
        {it.key(), it->at("default").get<double>(), text(*it, "unit", pwhere), text(*it, "description", pwhere)});
  }
  return out;
}

}  // namespace

Catalog Catalog::embedded() {
  std::vector<platform::EmbeddedFile> files;
  for (const auto& f : platform::embedded_files())
    if (f.path.starts_with("metrics/")) files.push_back(f);
  return from_files(files);
}

Catalog Catalog::from_files(std::span<const platform::EmbeddedFile> files) {
  Catalog c;
  std::vector<std::pair<std::string_view, json>> metric_files;
  for (const auto& f : files) {
    json j = parse(f.path, f.data);
    if (schema_of(f.path, j) == kPmuTypesSchema)
      c.add_pmu_types(f.path, j);
    else
      metric_files.emplace_back(f.path, std::move(j));
  }
  for (const auto& [path, j] : metric_files) c.add_metrics(path, j);
  return c;
}

void Catalog::add_file(std::string_view path, std::string_view data) {
  json j = parse(path, data);
  if (schema_of(path, j) == kPmuTypesSchema)
    add_pmu_types(path, j);
  else
    add_metrics(path, j);
}

void Catalog::add_file(const std::filesystem::path& path) {
  add_file(path.string(), read_file(path));
}

void Catalog::add_pmu_types(std::string_view path, const json& file) {
  check_object(file, std::string(path), {"schema", "description", "pmu_types"});
  if (!file.at("pmu_types").is_array()) fail(std::string(path), "'pmu_types' must be an array");
  std::size_t i = 0;
  for (const json& t : file.at("pmu_types")) {
    std::string where = fmt::format("{}: pmu_types[{}]", path, i++);
    check_object(t, where, {"pattern", "description", "source", "terms", "events"});
    PmuType type;
    type.pattern = text(t, "pattern", where);
    where = fmt::format("{}: PMU type '{}'", path, type.pattern);
    if (std::string why = check_pmu_pattern(type.pattern); !why.empty()) fail(where, why);
    if (const PmuType* other = find_pmu_type(type.pattern); other && other->pattern == type.pattern)
      fail(where, fmt::format("already declared in {}", other->file));
    type.description = text(t, "description", where);
    type.source = text(t, "source", where);
    type.terms = text_list(t, "terms", where);
    type.events = text_list(t, "events", where);
    type.file = std::string(path);
    pmu_types_.push_back(std::move(type));
  }
}

namespace {

// The name, description, unit, group and export name of a metric entry (its "head").
MetricSpec read_head(const json& m, const std::string& where) {
  MetricSpec spec;
  spec.name = text(m, "name", where);
  if (!is_snake_case(spec.name)) fail(where, "the name must be snake_case, as perf's metric names are");
  spec.description = text(m, "description", where);
  spec.unit = text(m, "unit", where);
  if (std::find(kUnits.begin(), kUnits.end(), spec.unit) == kUnits.end())
    fail(where, fmt::format("unknown unit '{}' (one of {})", spec.unit, fmt::join(kUnits, ", ")));
  if (m.contains("export_as")) {
    spec.export_as = text(m, "export_as", where);
    if (!is_snake_case(spec.export_as)) fail(where, "'export_as' must be snake_case");
  }
  if (m.contains("metric_group")) spec.metric_group = text(m, "metric_group", where);
  return spec;
}

// The PMU, events, terms, kinds, expression and source of a metric or of one of its variants.
void read_body(const Catalog& catalog, const json& m, const std::string& where, MetricSpec& spec) {
  spec.pmu = text(m, "pmu", where);
  const PmuType* type = catalog.find_pmu_type(spec.pmu);
  if (!type)
    fail(where,
         fmt::format("unknown PMU type '{}' (PMU types are declared in a \"{}\" file)", spec.pmu, kPmuTypesSchema));
  spec.events = read_events(catalog, m, *type, where);
  spec.parameters = read_parameters(m, where);
  spec.required_terms = text_list(m, "required_terms", where);
  spec.pmu_kinds = text_list(m, "pmu_kinds", where);
  spec.platforms = text_list(m, "platforms", where);
  spec.not_platforms = text_list(m, "not_platforms", where);
  for (const auto& term : spec.required_terms)
    if (!type->has_term(term)) fail(where, fmt::format("required term '{}' is not a term of {}", term, type->pattern));
  if (!m.at("expression").is_string()) fail(where, "'expression' must be a string");
  spec.expression = m.at("expression").get<std::string>();
  spec.source = text(m, "source", where);
}

// Whether two variants sharing a PMU kind are for different platforms: one lists its platforms and
// the other is for none of them.
bool platforms_apart(const MetricSpec& a, const MetricSpec& b) {
  const auto in = [](const std::vector<std::string>& v, const std::string& p) {
    return std::find(v.begin(), v.end(), p) != v.end();
  };
  const auto covers = [&](const MetricSpec& x, const std::string& p) {
    return (x.platforms.empty() || in(x.platforms, p)) && !in(x.not_platforms, p);
  };
  const auto apart = [&](const MetricSpec& listed, const MetricSpec& other) {
    return !listed.platforms.empty() && std::none_of(listed.platforms.begin(), listed.platforms.end(),
                                                     [&](const std::string& p) { return covers(other, p); });
  };
  return apart(a, b) || apart(b, a);
}

// perf's metrics pmukit does not count, each with the reason ("unavailable" in a metrics file).
void read_unavailable(const json& file, std::string_view path, const std::string& family,
                      std::vector<UnavailableMetric>& out) {
  if (!file.contains("unavailable")) return;
  if (!file.at("unavailable").is_array()) fail(std::string(path), "'unavailable' must be an array");
  std::size_t i = 0;
  for (const json& u : file.at("unavailable")) {
    const std::string where = fmt::format("{}: unavailable[{}]", path, i++);
    check_object(u, where, {"name", "description", "platforms", "reason", "source"});
    UnavailableMetric m;
    m.name = text(u, "name", where);
    if (!is_snake_case(m.name)) fail(where, "the name must be snake_case, as perf's metric names are");
    m.description = text(u, "description", where);
    m.platforms = text_list(u, "platforms", where);
    if (m.platforms.empty()) fail(where, "'platforms' must name the platforms perf has the metric for");
    m.reason = text(u, "reason", where);
    m.source = text(u, "source", where);
    m.family = family;
    m.file = std::string(path);
    out.push_back(std::move(m));
  }
}

}  // namespace

void Catalog::add_metrics(std::string_view path, const json& file) {
  check_object(file, std::string(path), {"schema", "family", "description", "source", "metrics"}, {"unavailable"});
  std::string family = text(file, "family", std::string(path));
  if (!is_snake_case(family)) fail(std::string(path), fmt::format("family '{}' is not snake_case", family));
  read_unavailable(file, path, family, unavailable_);
  if (!file.at("metrics").is_array() || file.at("metrics").empty())
    fail(std::string(path), "'metrics' must be a non-empty array");
  std::size_t i = 0;
  for (const json& m : file.at("metrics")) {
    std::string where = fmt::format("{}: metrics[{}]", path, i++);
    if (m.is_object() && m.contains("name") && m.at("name").is_string())
      where = fmt::format("{}: metric '{}'", path, m.at("name").get<std::string>());
    if (m.is_object() && m.contains("variants")) {
      add_variants(path, family, m, where);
      continue;
    }
    check_object(
        m, where, {"name", "description", "unit", "pmu", "events", "expression", "source"},
        {"parameters", "required_terms", "pmu_kinds", "platforms", "not_platforms", "export_as", "metric_group"});
    MetricSpec spec = read_head(m, where);
    if (const Metric* other = find(spec.name)) fail(where, fmt::format("also defined in {}", other->spec().file));
    read_body(*this, m, where, spec);
    spec.family = family;
    spec.file = std::string(path);
    metrics_.emplace_back(std::move(spec));  // checks the expression against the bindings
  }
}

// One name with a formula for each generation (perf's per-model metric files): each variant is a
// Metric of that name for its pmu_kinds, which no two variants share unless they are for different
// platforms (platforms / not_platforms).
void Catalog::add_variants(std::string_view path, const std::string& family, const json& m, const std::string& where) {
  check_object(m, where, {"name", "description", "unit", "variants"}, {"export_as", "metric_group"});
  const MetricSpec head = read_head(m, where);
  if (const Metric* other = find(head.name)) fail(where, fmt::format("also defined in {}", other->spec().file));
  if (!m.at("variants").is_array() || m.at("variants").empty()) fail(where, "'variants' must be a non-empty array");
  std::vector<MetricSpec> seen;  // the earlier variants
  std::size_t i = 0;
  for (const json& v : m.at("variants")) {
    const std::string vwhere = fmt::format("{}: variants[{}]", where, i++);
    check_object(v, vwhere, {"pmu", "pmu_kinds", "events", "expression", "source"},
                 {"parameters", "required_terms", "platforms", "not_platforms"});
    MetricSpec spec = head;
    read_body(*this, v, vwhere, spec);
    if (spec.pmu_kinds.empty()) fail(vwhere, "'pmu_kinds' must name the kinds the variant is for");
    for (const auto& k : spec.pmu_kinds)
      for (const MetricSpec& earlier : seen)
        if (std::find(earlier.pmu_kinds.begin(), earlier.pmu_kinds.end(), k) != earlier.pmu_kinds.end() &&
            !platforms_apart(earlier, spec))
          fail(vwhere, fmt::format("PMU kind '{}' is in an earlier variant too", k));
    seen.push_back(spec);
    spec.family = family;
    spec.file = std::string(path);
    metrics_.emplace_back(std::move(spec));
  }
}

std::vector<const Metric*> Catalog::variants(std::string_view name) const {
  std::vector<const Metric*> out;
  for (const auto& m : metrics_)
    if (m.name() == name) out.push_back(&m);
  return out;
}

const Metric* Catalog::find(std::string_view name) const {
  auto it = std::find_if(metrics_.begin(), metrics_.end(), [&](const Metric& m) { return m.name() == name; });
  return it == metrics_.end() ? nullptr : &*it;
}

const UnavailableMetric* Catalog::find_unavailable(std::string_view name, std::string_view platform) const {
  for (const auto& u : unavailable_)
    if (u.name == name &&
        (platform.empty() || std::find(u.platforms.begin(), u.platforms.end(), platform) != u.platforms.end()))
      return &u;
  return nullptr;
}

const Metric& Catalog::at(std::string_view name) const {
  if (const Metric* m = find(name)) return *m;
  throw UsageError(fmt::format("unknown metric '{}'", name));
}

std::vector<const Metric*> Catalog::for_pmu(std::string_view pmu) const {
  std::vector<const Metric*> out;
  bool is_pattern = pmu.find('%') != std::string_view::npos;
  for (const auto& m : metrics_) {
    if (is_pattern) {
      const PmuType* type = find_pmu_type(m.pmu());
      if (m.pmu() == pmu || (type && type->pattern == pmu)) out.push_back(&m);
    } else if (m.applies_to(pmu)) {
      out.push_back(&m);
    }
  }
  return out;
}

const PmuType* Catalog::find_pmu_type(std::string_view pattern_or_name) const {
  for (const auto& t : pmu_types_)
    if (t.pattern == pattern_or_name) return &t;
  if (pattern_or_name.find('%') != std::string_view::npos) return nullptr;
  for (const auto& t : pmu_types_)
    if (t.matches(pattern_or_name)) return &t;
  return nullptr;
}

}  // namespace pmukit::metrics
