// pmukit -- CoreSight register assembly from config words, and its JSON form.
#include "pmukit/families/coresight/coresight_programming.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/bits.h"
#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"
#include "pmukit/util/text.h"

namespace pmukit::platform {

std::uint64_t ConfigBits::take(const std::uint64_t cfg[3]) const {
  return bits(cfg[config], hi, lo);
}

void ConfigBits::copy(const std::uint64_t from[3], std::uint64_t to[3]) const {
  const std::uint64_t field = low_mask(hi - lo + 1) << lo;
  to[config] = (to[config] & ~field) | (from[config] & field);
}

std::uint64_t RegisterAssembly::assemble(const std::uint64_t cfg[3]) const {
  std::uint64_t v = 0;
  for (const auto& p : pieces) {
    std::uint64_t part = p.from.take(cfg);
    if (part == 0 && p.default_value) part = *p.default_value;
    v |= part << p.to;
  }
  return v == 0 && default_value ? *default_value : v;
}

CoreSightProgramming CoreSightProgramming::arm_default() {
  CoreSightProgramming c;
  c.cycles_bit = ConfigBits{0, 32, 32};
  c.pmevtyper.pieces = {{ConfigBits{0, 0, 31}, 0, std::nullopt}};
  c.pmevfiltr.pieces = {{ConfigBits{1, 0, 31}, 0, std::nullopt}};
  c.pmevfilt2r.pieces = {{ConfigBits{2, 0, 31}, 0, std::nullopt}};
  c.pmccfiltr = c.pmevfiltr;
  return c;
}

namespace {

// "config1:0-9", "config:32" -> ConfigBits
ConfigBits parse_bits(const std::string& text, const std::string& where) {
  auto colon = text.find(':');
  std::string word = text.substr(0, colon);
  int config = word == "config" ? 0 : word == "config1" ? 1 : word == "config2" ? 2 : -1;
  if (colon == std::string::npos || config < 0) throw Error(fmt::format("{}: '{}' is not configN:lo-hi", where, text));
  auto range = split(std::string_view(text).substr(colon + 1), '-');
  auto lo = parse_u64(range[0]);
  auto hi = range.size() == 2 ? parse_u64(range[1]) : lo;
  if (!lo || !hi || *hi < *lo || *hi > 63 || range.size() > 2)
    throw Error(fmt::format("{}: bad bit range in '{}'", where, text));
  return ConfigBits{config, static_cast<unsigned>(*lo), static_cast<unsigned>(*hi)};
}

RegisterAssembly parse_assembly(const nlohmann::json& j, const std::string& where) {
  RegisterAssembly a;
  for (const auto& p : j.at("pieces")) {
    RegisterPiece piece;
    piece.from = parse_bits(p.at("from").get<std::string>(), where);
    piece.to = static_cast<unsigned>(p.contains("to") ? json_number(p["to"], where) : 0);
    if (p.contains("default")) piece.default_value = json_number(p["default"], where);
    a.pieces.push_back(piece);
  }
  if (j.contains("default")) a.default_value = json_number(j["default"], where);
  return a;
}

}  // namespace

CoreSightProgramming CoreSightProgramming::from_json(const nlohmann::json& j, const std::string& where) {
  CoreSightProgramming c = arm_default();
  if (j.contains("cycles")) {
    const auto& cy = j["cycles"];
    if (cy.is_null()) {
      c.cycles_bit.reset();
    } else if (cy.is_object()) {
      c.cycles_bit = parse_bits(cy.at("bits").get<std::string>(), where + " cycles");
      c.cycles_equals = json_number(cy.at("equals"), where + " cycles");
    } else {
      c.cycles_bit = parse_bits(cy.get<std::string>(), where + " cycles");
    }
  }
  if (j.contains("one_bdf_filter")) {
    const auto& b = j["one_bdf_filter"];
    c.one_bdf_filter = OneBdfFilter{parse_bits(b.at("rp_mask").get<std::string>(), where + " one_bdf_filter"),
                                    parse_bits(b.at("bdf").get<std::string>(), where + " one_bdf_filter"),
                                    parse_bits(b.at("enable").get<std::string>(), where + " one_bdf_filter")};
  }
  if (j.contains("pmevtyper")) c.pmevtyper = parse_assembly(j["pmevtyper"], where + " pmevtyper");
  if (j.contains("pmevfiltr")) c.pmevfiltr = parse_assembly(j["pmevfiltr"], where + " pmevfiltr");
  if (j.contains("pmevfilt2r")) c.pmevfilt2r = parse_assembly(j["pmevfilt2r"], where + " pmevfilt2r");
  c.pmccfiltr = j.contains("pmccfiltr") ? parse_assembly(j["pmccfiltr"], where + " pmccfiltr") : c.pmevfiltr;
  for (const auto& a : j.value("aux", nlohmann::json::array()))
    c.aux.push_back({static_cast<std::uint32_t>(json_number(a.at("offset"), where + " aux")),
                     parse_assembly(a.at("value"), where + " aux")});
  for (const auto& u : j.value("unsupported", nlohmann::json::array()))
    c.unsupported.push_back({parse_bits(u.at("bits").get<std::string>(), where + " unsupported"),
                             u.at("why").get<std::string>(), u.value("advice", std::string())});
  return c;
}

}  // namespace pmukit::platform
