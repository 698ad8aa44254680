// pmukit -- exact rates, and the rules a workload scenario (or rates.json) gives per unit or kind:
// documented counts over a documented span, and occupancy (outstanding = requests x latency).
#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/sim/simulator.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::sim {

namespace {

__extension__ using Wide = unsigned __int128;
constexpr std::uint64_t kNsPerS = 1'000'000'000ull;

std::string canonical(std::string_view code) {
  if (auto v = parse_u64(code)) return hex(*v);
  return std::string(code);
}

}  // namespace

Rate Rate::of(double per_s) {
  // Below 2^63 a double that is a whole number converts exactly.
  if (per_s >= 0 && per_s < 9.2e18 && per_s == std::floor(per_s))
    return exact(static_cast<std::uint64_t>(per_s), kNsPerS);
  return {per_s, 0, 0};
}

Rate Rate::times(std::uint64_t num, std::uint64_t den) const {
  const double approx = per_second() * static_cast<double>(num) / static_cast<double>(den ? den : 1);
  if (!per_ns || !den) return of(approx);
  const std::uint64_t g1 = std::gcd(count, den) ? std::gcd(count, den) : 1,
                      g2 = std::gcd(num, per_ns) ? std::gcd(num, per_ns) : 1;
  const Wide c = Wide(count / g1) * (num / g2), p = Wide(per_ns / g2) * (den / g1);
  if (c > ~0ull || p > ~0ull) return of(approx);
  return exact(static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(p));
}

Rate Rate::plus(const Rate& o) const {
  if (per_ns && o.per_ns) {
    const std::uint64_t g = std::gcd(per_ns, o.per_ns);
    const Wide p = Wide(per_ns / g) * o.per_ns, c = Wide(count) * (o.per_ns / g) + Wide(o.count) * (per_ns / g);
    if (c <= ~0ull && p <= ~0ull) {
      const std::uint64_t cc = static_cast<std::uint64_t>(c), pp = static_cast<std::uint64_t>(p);
      const std::uint64_t r = std::gcd(cc, pp) ? std::gcd(cc, pp) : 1;
      return exact(cc / r, pp / r);
    }
  }
  return of(per_second() + o.per_second());
}

std::uint64_t Accumulator::advance(const Rate& rate, std::uint64_t dt_ns) {
  if (!rate.per_ns) return advance(rate.per_s, dt_ns);
  // In 128-bit integers: a run split into any number of steps counts exactly floor(count x t / per_ns).
  Wide sub = Wide(rate.count) * dt_ns + rem_;
  rem_ = static_cast<std::uint64_t>(sub % rate.per_ns);
  return static_cast<std::uint64_t>(sub / rate.per_ns);
}

bool Rates::Match::matches(std::string_view u, const std::string& k, const std::string& c) const {
  if (code != "*" && code != c) return false;
  if (!kind.empty()) return kind == k;
  if (unit.ends_with('*')) return u.starts_with(std::string_view(unit).substr(0, unit.size() - 1));
  return unit == u;
}

namespace {

Rates::Match parse_match(const nlohmann::json& rule, const char* code_key, const std::string& where) {
  Rates::Match m;
  m.unit = rule.value("unit", "");
  m.kind = rule.value("kind", "");
  m.code = canonical(rule.at(code_key).get<std::string>());
  if (m.unit.empty() == m.kind.empty())
    throw Error(fmt::format("{}: a rule names a unit or a kind (one of them)", where));
  return m;
}

Rate parse_rate(const nlohmann::json& rule, std::uint64_t span_ns, const std::string& where) {
  if (auto c = rule.find("count"); c != rule.end()) {
    if (!span_ns) throw Error(fmt::format("{}: a rule gives a count, but the scenario has no span_ns", where));
    return Rate::exact(c->get<std::uint64_t>(), span_ns);
  }
  double r = rule.at("rate").get<double>();
  if (!(r >= 0) || !std::isfinite(r)) throw Error(fmt::format("{}: rate {} is not counts per second", where, r));
  return Rate::of(r);
}

std::uint64_t hex_field(const nlohmann::json& rule, const char* key) {
  const std::string text = rule.value(key, "0");
  auto v = parse_u64(text);
  if (!v) throw std::invalid_argument(fmt::format("{} '{}' is not a number", key, text));
  return *v;
}

Rates::TrafficFilter parse_filter(const nlohmann::json& rule, const std::string& where) {
  Rates::TrafficFilter f;
  nlohmann::json match = rule;
  match["code"] = "*";
  f.unit = parse_match(match, "code", where);
  f.port_mask = hex_field(rule, "port_mask");
  f.ports = hex_field(rule, "ports");
  if (auto b = rule.find("bdf"); b != rule.end()) {
    f.bdf_enable = b->at("enable_bit").get<int>();
    f.bdf_shift = b->at("shift").get<unsigned>();
    for (const auto& d : b->at("devices")) f.bdfs.push_back(hex_field(nlohmann::json{{"bdf", d}}, "bdf"));
  }
  return f;
}

}  // namespace

void Rates::add_scenario(std::string_view text, const std::string& what) {
  std::vector<std::pair<Match, Rate>> matched;
  std::vector<Occupancy> occupancy;
  std::vector<TrafficFilter> filters;
  std::vector<Derived> derived;
  try {
    auto doc = nlohmann::json::parse(text);
    const std::uint64_t span = doc.value("span_ns", std::uint64_t{0});
    for (const auto& rule : doc.value("events", nlohmann::json::array()))
      matched.emplace_back(parse_match(rule, "code", what), parse_rate(rule, span, what));
    for (const auto& rule : doc.value("occupancy", nlohmann::json::array()))
      occupancy.push_back({parse_match(rule, "outstanding", what), canonical(rule.at("requests").get<std::string>()),
                           rule.at("latency_ns").get<std::uint64_t>()});
    for (const auto& rule : doc.value("filters", nlohmann::json::array())) filters.push_back(parse_filter(rule, what));
    for (const auto& rule : doc.value("derived", nlohmann::json::array())) {
      Derived d{parse_match(rule, "code", what), {}};
      for (const auto& part : rule.at("sum")) d.sum.push_back(canonical(part.get<std::string>()));
      if (d.sum.empty() || std::find(d.sum.begin(), d.sum.end(), d.event.code) != d.sum.end())
        throw std::invalid_argument(fmt::format("derived '{}': a sum of other events", d.event.code));
      derived.push_back(std::move(d));
    }
  } catch (const std::invalid_argument& e) {
    throw Error(fmt::format("{}: not a scenario: {}", what, e.what()));
  } catch (const nlohmann::json::exception& e) {
    std::string_view m = e.what();  // without nlohmann's "[json.exception.type_error.302] " tag
    if (m.starts_with('[')) m.remove_prefix(std::min(m.size(), m.find("] ") + 2));
    throw Error(fmt::format("{}: not a scenario: {}", what, m));
  }
  for (const auto& [m, r] : matched)
    if (!m.unit.empty() && !m.unit.ends_with('*')) scenario_units_.push_back(m.unit);
  matched_.insert(matched_.begin(), matched.begin(), matched.end());
  occupancy_.insert(occupancy_.begin(), occupancy.begin(), occupancy.end());
  filters_.insert(filters_.begin(), filters.begin(), filters.end());
  derived_.insert(derived_.begin(), derived.begin(), derived.end());
}

double Rates::filter_share(std::string_view unit, const std::string& kind, std::uint64_t filter) const {
  for (const auto& f : filters_) {
    if (!f.unit.matches(unit, kind, "*")) continue;
    if (f.bdf_enable >= 0 && (filter >> f.bdf_enable & 1)) {
      const std::uint64_t bdf = filter >> f.bdf_shift & 0xffff;
      return std::find(f.bdfs.begin(), f.bdfs.end(), bdf) != f.bdfs.end() ? 1.0 : 0.0;
    }
    const std::uint64_t ports = filter & f.port_mask;
    return ports == 0 || (ports & f.ports) ? 1.0 : 0.0;
  }
  return 1.0;
}

Rate Rates::lookup(std::string_view unit, const std::string& kind, std::string_view code, unsigned depth) const {
  const std::string c = canonical(code);
  if (exact_.count({kind, c}) || exact_.count({kind, "*"})) return Rate::of(rate(kind, c));
  for (const auto& [m, r] : matched_)  // a rule for this very code before a rule for every code
    if (m.code != "*" && m.matches(unit, kind, c)) return r;
  for (const auto& d : derived_)
    if (d.event.matches(unit, kind, c)) {
      if (depth > 4) throw Error(fmt::format("derived rate of {} on {}: the rules refer to each other", c, unit));
      Rate sum = Rate::of(0);
      for (const auto& part : d.sum) sum = sum.plus(lookup(unit, kind, part, depth + 1));
      return sum;
    }
  for (const auto& [m, r] : matched_)
    if (m.code == "*" && m.matches(unit, kind, c)) return r;
  for (const auto& o : occupancy_)
    if (o.outstanding.matches(unit, kind, c)) {
      // Each cycle adds the requests then outstanding: requests/s x latency (ns) x cycles/ns.
      const Rate cycles = lookup(unit, kind, "cycles"), requests = lookup(unit, kind, o.requests);
      if (!cycles.per_ns)
        return Rate::of(requests.per_second() * static_cast<double>(o.latency_ns) * cycles.per_second() / 1e9);
      return requests.times(o.latency_ns * cycles.count, cycles.per_ns);
    }
  return Rate::of(rate(kind, c));
}

bool Rates::names(std::string_view unit, const std::string& kind, std::string_view code) const {
  const std::string c = canonical(code);
  if (has(kind, c)) return true;
  return std::any_of(matched_.begin(), matched_.end(),
                     [&](const auto& rule) { return rule.first.code == c && rule.first.matches(unit, kind, c); });
}

Rate Rates::lookup(std::string_view unit, const std::string& kind, std::uint64_t code) const {
  return lookup(unit, kind, hex(code));
}

}  // namespace pmukit::sim
