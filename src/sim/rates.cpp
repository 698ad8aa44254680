// pmukit -- simulated event rates and drift-free accumulation.
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/platform/database.h"
#include "pmukit/platform/embedded.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::sim {

namespace {
// Codes are compared as canonical text: numbers as lower-case hex, names as given.
std::string canonical(std::string_view code) {
  if (auto v = parse_u64(code)) return hex(*v);
  return std::string(code);
}
}  // namespace

Rates Rates::defaults() {
  Rates r;
  auto data = platform::find_embedded("sim/rates.json");
  if (!data) return r;
  auto doc = nlohmann::json::parse(*data);
  r.default_ = doc.value("default", 1e6);
  for (const auto& rule : doc.at("rules"))
    r.rules_[{rule.at("kind").get<std::string>(), canonical(rule.at("code").get<std::string>())}] =
        rule.at("rate").get<double>();
  if (auto t = doc.find("iio_traffic"); t != doc.end()) {
    auto codes = [&](const char* key) {
      std::vector<std::string> out;
      for (const auto& c : t->at(key)) out.push_back(canonical(c.get<std::string>()));
      return out;
    };
    r.iio_.kinds = t->at("kinds").get<std::vector<std::string>>();
    r.iio_.part_events = codes("part_events");
    r.iio_.stack_events = codes("stack_events");
    r.iio_.part_share = t->at("part_share").get<std::vector<double>>();
    r.iio_.stack_share = t->at("stack_share").get<std::vector<double>>();
  }
  r.add_scenario(*data, "platforms/sim/rates.json");  // its per-unit and occupancy rules
  return r;
}

namespace {

bool contains(const std::vector<std::string>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// A kind's format field as the control register holds it (the config word), 0 when it has none.
std::uint64_t field_of(const platform::PmuKind& kind, const char* name, std::uint64_t ctl, unsigned* width) {
  auto it = kind.formats.find(name);
  if (it == kind.formats.end()) return 0;
  auto field = syntax::parse_format(name, it->second);
  if (width) *width = syntax::format_width(field);
  return syntax::gather_value(field, {ctl, 0, 0});
}

}  // namespace

double Rates::traffic_share(const std::string& kind, std::uint64_t ctl, std::string_view unit) const {
  if (!contains(iio_.kinds, kind) || iio_.stack_share.empty()) return 1.0;
  const std::string code = hex(ctl & 0xffff);
  if (exact_.count({kind, code}) || exact_.count({kind, "*"})) return 1.0;
  const bool part = contains(iio_.part_events, code);
  if (!part && !contains(iio_.stack_events, code)) return 1.0;
  auto digits = unit.find_last_not_of("0123456789");
  unsigned stack = 0;
  if (auto n = parse_u64(unit.substr(digits == std::string_view::npos ? 0 : digits + 1))) stack = unsigned(*n);
  double share = iio_.stack_share[stack % iio_.stack_share.size()];
  if (!part) return share;
  const platform::PmuKind* k = platform::Database::builtin().pmu_kind(kind);
  if (!k) return share;
  unsigned fc_bits = 0;
  std::uint64_t ch = field_of(*k, "ch_mask", ctl, nullptr), fc = field_of(*k, "fc_mask", ctl, &fc_bits);
  double parts = 0;
  for (unsigned p = 0; p < iio_.part_share.size() && p < 64; ++p)
    if (ch >> p & 1) parts += iio_.part_share[p];
  double classes = fc_bits ? static_cast<double>(std::popcount(fc)) / fc_bits : 1.0;
  return share * parts * classes;
}

void Rates::add_rule(std::string_view rule) {
  auto eq = rule.rfind('=');
  double value = 0;
  if (eq == std::string_view::npos) throw UsageError(fmt::format("--rate '{}': expected KIND:CODE=RATE", rule));
  try {
    std::size_t used = 0;
    value = std::stod(std::string(rule.substr(eq + 1)), &used);
    if (used != rule.size() - eq - 1 || value < 0 || !std::isfinite(value)) throw std::invalid_argument("rate");
  } catch (const std::exception&) {
    throw UsageError(fmt::format("--rate '{}': '{}' is not a rate in counts per second", rule, rule.substr(eq + 1)));
  }
  std::string_view key = rule.substr(0, eq);
  if (key == "default") {
    default_ = value;
    return;
  }
  if (key == "cycles" || key == "fixed") {
    rules_[{"*", std::string(key)}] = value;
    return;
  }
  auto colon = key.find(':');
  std::string kind(key.substr(0, colon));
  std::string code = colon == std::string_view::npos ? "*" : canonical(key.substr(colon + 1));
  if (kind.empty() || code.empty()) throw UsageError(fmt::format("--rate '{}': expected KIND:CODE=RATE", rule));
  rules_[{kind, code}] = value;
  exact_.insert({kind, code});
}

double Rates::rate(const std::string& kind, std::string_view code) const {
  std::string c = canonical(code);
  for (const auto& key : {std::pair{kind, c}, std::pair{kind, std::string("*")}, std::pair{std::string("*"), c}})
    if (auto it = rules_.find(key); it != rules_.end()) return it->second;
  return default_;
}

bool Rates::has(const std::string& kind, std::string_view code) const {
  return rules_.count({kind, canonical(code)}) != 0;
}

double Rates::rate(const std::string& kind, std::uint64_t code) const {
  return rate(kind, hex(code));
}

std::uint64_t Accumulator::advance(double rate, std::uint64_t dt_ns) {
  // A whole number of counts per second (every rate the tests use) is exact: see advance(Rate).
  if (Rate r = Rate::of(rate); r.per_ns) return advance(r, dt_ns);
  constexpr long double kNsPerS = 1e9L;
  long double exact = carry_ + static_cast<long double>(rate) * static_cast<long double>(dt_ns) / kNsPerS;
  long double whole = std::floor(exact);
  carry_ = exact - whole;
  return static_cast<std::uint64_t>(whole);
}

}  // namespace pmukit::sim
