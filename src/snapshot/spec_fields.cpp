// pmukit -- reading machine-spec values with errors that say where they are and what was
// expected ("pcie_root_ports[2].id: expected a hex string vvvv:dddd, got a number").
#include <fmt/format.h>

#include "pmukit/snapshot/spec_context.h"
#include "pmukit/util/file.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit::snapshot::spec {

std::string key_path(const std::string& where, std::string_view key) {
  return where.empty() ? std::string(key) : fmt::format("{}.{}", where, key);
}

std::string index_path(const std::string& where, std::size_t i) {
  return fmt::format("{}[{}]", where, i);
}

std::string kind_of(const json& j) {
  switch (j.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::boolean:
    return j.get<bool>() ? "true" : "false";
  case json::value_t::string: {
    std::string s = j.get<std::string>();
    return fmt::format("the string \"{}\"", s.size() > 40 ? s.substr(0, 40) + "..." : s);
  }
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return fmt::format("the number {}", j.dump());
  case json::value_t::number_float:
    return fmt::format("the number {}", j.dump());
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "an array";
  default:
    return "a value of no JSON type";
  }
}

void expected(const std::string& where, std::string_view what, const json& got) {
  throw SpecError(fmt::format("{}: expected {}, got {}", where, what, kind_of(got)));
}

const json* opt(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) expected(where, "an object", obj);
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const json& need(const json& obj, const char* key, const std::string& where) {
  if (const json* j = opt(obj, key, where)) return *j;
  throw SpecError(fmt::format("{}: missing \"{}\"", where.empty() ? "the spec" : where, key));
}

std::uint64_t num(const json& j, const std::string& where) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(j.get<std::int64_t>());
  if (j.is_string())
    if (auto v = parse_u64(j.get<std::string>())) return *v;
  expected(where, "a whole number or a \"0x...\" string", j);
}

std::uint64_t num_in(const json& j, std::uint64_t max, const std::string& where) {
  std::uint64_t v = num(j, where);
  if (v > max) throw SpecError(fmt::format("{}: {:#x} is larger than {:#x}", where, v, max));
  return v;
}

std::uint64_t num_or(const json& obj, const char* key, std::uint64_t fallback, const std::string& where) {
  const json* j = opt(obj, key, where);
  return j ? num(*j, key_path(where, key)) : fallback;
}

std::uint64_t num_or_in(const json& obj, const char* key, std::uint64_t fallback, std::uint64_t max,
                        const std::string& where) {
  const json* j = opt(obj, key, where);
  return j ? num_in(*j, max, key_path(where, key)) : fallback;
}

int int_or(const json& obj, const char* key, int fallback, int lo, int hi, const std::string& where) {
  const json* j = opt(obj, key, where);
  if (!j) return fallback;
  if (j->is_number_integer() || j->is_number_unsigned()) {
    auto v = j->get<std::int64_t>();
    if (j->is_number_integer() && v >= lo && v <= hi) return static_cast<int>(v);
  }
  expected(key_path(where, key), fmt::format("a whole number from {} to {}", lo, hi), *j);
}

std::string str(const json& obj, const char* key, const std::string& where) {
  const json& j = need(obj, key, where);
  if (!j.is_string()) expected(key_path(where, key), "a string", j);
  return j.get<std::string>();
}

std::string str_or(const json& obj, const char* key, const std::string& fallback, const std::string& where) {
  return opt(obj, key, where) ? str(obj, key, where) : fallback;
}

bool flag_or(const json& obj, const char* key, bool fallback, const std::string& where) {
  const json* j = opt(obj, key, where);
  if (!j) return fallback;
  if (!j->is_boolean()) expected(key_path(where, key), "true or false", *j);
  return j->get<bool>();
}

const json& list_or_empty(const json& obj, const char* key, const std::string& where) {
  static const json kEmpty = json::array();
  const json* j = opt(obj, key, where);
  if (!j) return kEmpty;
  if (!j->is_array()) expected(key_path(where, key), "an array", *j);
  return *j;
}

const json& list(const json& obj, const char* key, const std::string& where) {
  const json& j = need(obj, key, where);
  if (!j.is_array()) expected(key_path(where, key), "an array", j);
  return j;
}

const json& item(const json& array, std::size_t i, const std::string& where) {
  if (!array.is_array()) expected(where, "an array", array);
  if (i >= array.size())
    throw SpecError(fmt::format("{}: expected at least {} entries, got {}", where, i + 1, array.size()));
  return array[i];
}

std::string name(const json& j, const std::string& where) {
  if (!j.is_string()) expected(where, "a name", j);
  std::string s = j.get<std::string>();
  bool ok = !s.empty() && s.size() <= 128 && s != "." && s != "..";
  for (char c : s)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':');
  if (!ok)
    throw SpecError(fmt::format("{}: '{}' is not a file name (letters, digits, _ - . : only; no '/', no '..')", where,
                                s.size() > 40 ? s.substr(0, 40) + "..." : s));
  return s;
}

Bdf bdf(const json& j, const std::string& where) {
  auto b = j.is_string() ? Bdf::parse(j.get<std::string>()) : std::nullopt;
  if (!b) expected(where, "a PCI address \"dddd:bb:dd.f\"", j);
  return *b;
}

std::pair<std::uint16_t, std::uint16_t> pci_id(const json& j, const std::string& where) {
  // The views split() returns point into `text`, so it must outlive them.
  const std::string text = j.is_string() ? j.get<std::string>() : std::string{};
  auto ids = split(text, ':');
  auto hex4 = [](std::string_view s) { return s.size() == 4 ? parse_hex(s) : std::nullopt; };
  auto vendor = ids.size() == 2 ? hex4(ids[0]) : std::nullopt;
  auto device = ids.size() == 2 ? hex4(ids[1]) : std::nullopt;
  if (!vendor || !device) expected(where, "a hex string \"vvvv:dddd\"", j);
  return {static_cast<std::uint16_t>(*vendor), static_cast<std::uint16_t>(*device)};
}

std::vector<unsigned> id_list(const json& j, std::size_t max_count, const std::string& where) {
  std::vector<unsigned> ids;
  if (j.is_array()) {
    if (j.size() > max_count) throw SpecError(fmt::format("{}: more than {} ids", where, max_count));
    for (std::size_t i = 0; i < j.size(); ++i)
      ids.push_back(static_cast<unsigned>(num_in(j[i], 0xffff, index_path(where, i))));
    return ids;
  }
  auto list = j.is_string() ? parse_cpu_list(j.get<std::string>()) : std::nullopt;
  if (!list) expected(where, fmt::format("an id list (\"0-7,9\" or [0, 1]) of at most {} ids", max_count), j);
  if (list->size() > max_count) throw SpecError(fmt::format("{}: more than {} ids", where, max_count));
  for (int v : *list) ids.push_back(static_cast<unsigned>(v));
  return ids;
}

}  // namespace pmukit::snapshot::spec
