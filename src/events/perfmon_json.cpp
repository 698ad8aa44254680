// pmukit -- Intel perfmon JSON event files to perf terms, following perf's jevents.py.
#include "pmukit/events/perfmon_json.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/text.h"

namespace pmukit::events {

using nlohmann::json;

namespace {

// jevents.py unit_to_pmu(): the units whose PMU is not simply "uncore_" + lower-case unit.
constexpr std::array<std::pair<std::string_view, std::string_view>, 23> kUnitExceptions{{
    {"CBO", "uncore_cbox"},
    {"QPI LL", "uncore_qpi"},
    {"SBO", "uncore_sbox"},
    {"iMPH-U", "uncore_arb"},
    {"CPU-M-CF", "cpum_cf"},
    {"CPU-M-SF", "cpum_sf"},
    {"PAI-CRYPTO", "pai_crypto"},
    {"PAI-EXT", "pai_ext"},
    {"UPI LL", "uncore_upi"},
    {"hisi_sicl,cpa", "hisi_sicl,cpa"},
    {"hisi_sccl,ddrc", "hisi_sccl,ddrc"},
    {"hisi_sccl,hha", "hisi_sccl,hha"},
    {"hisi_sccl,l3c", "hisi_sccl,l3c"},
    {"imx8_ddr", "imx8_ddr"},
    {"imx9_ddr", "imx9_ddr"},
    {"L3PMC", "amd_l3"},
    {"DFPMC", "amd_df"},
    {"UMCPMC", "amd_umc"},
    {"cpu_core", "cpu_core"},
    {"cpu_atom", "cpu_atom"},
    {"ali_drw", "ali_drw"},
    {"arm_cmn", "arm_cmn"},
    {"tool", "tool"},
}};

// jevents.py lookup_msr(): the MSR an event's MSRValue goes to, as a perf term.
std::optional<std::string_view> msr_term(std::uint64_t msr) {
  switch (msr) {
  case 0x3f6:
    return "ldlat";
  case 0x1a6:
  case 0x1a7:
    return "offcore_rsp";
  case 0x3f7:
    return "frontend";
  default:
    return std::nullopt;
  }
}

class EventReader {
 public:
  EventReader(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  [[noreturn]] void fail(std::string_view reason) const { throw Error(fmt::format("{}: {}", where_, reason)); }

  // A field as text: perfmon files write every value as a string, but accept plain JSON numbers.
  std::optional<std::string> text(std::string_view key) const {
    auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) return std::nullopt;
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number_unsigned()) return std::to_string(it->get<std::uint64_t>());
    if (it->is_boolean()) return std::string(it->get<bool>() ? "1" : "0");
    fail(fmt::format("{} must be a string", key));
  }

  // A numeric field; for "EventCode": "0xB7,0xBB" (either counter) the first code, as perf takes.
  std::optional<std::uint64_t> number(std::string_view key) const {
    auto t = text(key);
    if (!t) return std::nullopt;
    std::string_view first = trim(split(*t, ',').front());
    auto v = parse_u64(first);
    if (!v) fail(fmt::format("{} '{}' is not a number", key, *t));
    return v;
  }

  // Hex in the file stays hex in the terms ("0x05"), decimal stays decimal ("1").
  std::string formatted(std::string_view key, std::uint64_t v) const {
    auto t = text(key);
    bool hex = !t || (t->size() > 1 && (*t)[0] == '0' && ((*t)[1] == 'x' || (*t)[1] == 'X'));
    return hex ? fmt::format("0x{:02x}", v) : fmt::format("{}", v);
  }

  bool flag(std::string_view key) const {
    auto t = text(key);
    if (!t || *t == "0") return false;
    if (*t == "1") return true;
    fail(fmt::format("{} is '{}', not 0 or 1", key, *t));
  }

 private:
  const json& obj_;
  std::string where_;
};

// ScaleUnit "64Bytes" -> {64, "Bytes"}; "6.103515625e-5MiB" -> {6.1e-5, "MiB"}; "MiB" -> {1,
// "MiB"}.
std::pair<double, std::string> parse_scale_unit(std::string_view s) {
  s = trim(s);
  double scale = 1.0;
  auto [end, ec] = parse_double(s.data(), s.data() + s.size(), scale);
  if (ec != std::errc()) return {1.0, std::string(s)};
  return {scale, std::string(trim(std::string_view(end, static_cast<std::size_t>(s.data() + s.size() - end))))};
}

PerfmonEvent convert(const json& obj, std::string_view origin, std::size_t index) {
  if (!obj.is_object()) throw Error(fmt::format("{}: events[{}]: not a JSON object", origin, index));
  PerfmonEvent e;
  {
    EventReader named(obj, fmt::format("{}: events[{}]", origin, index));
    auto name = named.text("EventName");
    if (!name || name->empty()) named.fail("no EventName");
    e.name = *name;
  }
  EventReader r(obj, fmt::format("{}: event '{}'", origin, e.name));

  e.event_code = r.number("EventCode").value_or(0) | (r.number("ExtSel").value_or(0) << 8);
  e.umask = r.number("UMask").value_or(0);
  // perf's order: event first, then the other fields; a zero field is left out, event never is.
  std::string terms = fmt::format("event={}", r.formatted("EventCode", e.event_code));
  auto add = [&](std::string_view field, std::string_view term) {
    if (auto v = r.number(field); v && *v != 0) terms += fmt::format(",{}={}", term, r.formatted(field, *v));
  };
  add("UMask", "umask");
  add("PortMask", "ch_mask");
  add("FCMask", "fc_mask");
  add("CounterMask", "cmask");
  add("EdgeDetect", "edge");
  add("Invert", "inv");
  if (auto filter = r.text("Filter"); filter && !trim(*filter).empty()) terms += "," + std::string(trim(*filter));
  if (auto msr = r.number("MSRIndex"); msr && *msr != 0) {
    auto term = msr_term(*msr);
    if (!term) r.fail(fmt::format("MSRIndex {} is not one perf knows", hex(*msr)));
    auto value = r.text("MSRValue");
    if (!value) r.fail("MSRIndex without MSRValue");
    terms += fmt::format(",{}={}", *term, trim(*value));
  }
  e.terms = std::move(terms);

  e.unit = r.text("Unit").value_or("");
  e.pmu_type = unit_to_pmu_type(e.unit);
  if (auto su = r.text("ScaleUnit")) std::tie(e.scale, e.scale_unit) = parse_scale_unit(*su);
  e.description = r.text("BriefDescription").value_or("");
  e.public_description = r.text("PublicDescription").value_or("");
  e.counter = r.text("Counter").value_or("");
  e.per_pkg = r.flag("PerPkg");
  e.deprecated = r.flag("Deprecated");
  e.experimental = r.flag("Experimental");
  return e;
}

}  // namespace

syntax::EventAlias PerfmonEvent::alias() const {
  return syntax::EventAlias{to_lower(name), terms, scale, scale_unit};
}

std::string unit_to_pmu_type(std::string_view unit) {
  if (unit.empty()) return "cpu";
  for (const auto& [u, pmu] : kUnitExceptions)
    if (u == unit) return std::string(pmu);
  return "uncore_" + to_lower(unit);
}

PerfmonEvents PerfmonEvents::load(const std::filesystem::path& path) {
  return parse(read_file(path), path.string());
}

PerfmonEvents PerfmonEvents::parse(std::string_view text, std::string_view origin) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too large (406)
    throw Error(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
  const json* list = &doc;
  if (doc.is_object() && doc.contains("Events")) list = &doc.at("Events");
  if (!list->is_array())
    throw Error(fmt::format("{}: expected an array of events or {{\"Header\": ..., \"Events\": [...]}}", origin));
  const json* topics = doc.is_object() && doc.contains("Topics") ? &doc.at("Topics") : nullptr;
  if (topics && !topics->is_object()) throw Error(fmt::format("{}: Topics must be an object", origin));
  PerfmonEvents out;
  out.events_.reserve(list->size());
  std::size_t index = 0;
  for (const json& obj : *list) {
    auto& e = out.events_.emplace_back(convert(obj, origin, index));
    if (auto t = topics ? topics->find(e.unit) : json::const_iterator(); topics && t != topics->end() && t->is_string())
      e.topic = t->get<std::string>();
    out.by_name_.emplace(to_lower(e.name), index++);  // the first of equal names wins
  }
  return out;
}

const PerfmonEvent* PerfmonEvents::find(std::string_view name) const {
  auto it = by_name_.find(to_lower(name));
  return it == by_name_.end() ? nullptr : &events_[it->second];
}

}  // namespace pmukit::events
