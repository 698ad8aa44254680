// pmukit -- JSON field readers shared by the platform database and the machine-spec writer.
#include "pmukit/util/json_fields.h"

#include <fmt/format.h>

#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit {

std::uint64_t json_number(const nlohmann::json& j, const std::string& where) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(j.get<std::int64_t>());
  if (j.is_string())
    if (auto v = parse_u64(j.get<std::string>())) return *v;
  throw Error(fmt::format("{}: '{}' is not a number", where, j.dump()));
}

std::string json_string(const nlohmann::json& j, const char* key, const std::string& where, bool required) {
  if (!j.contains(key)) {
    if (required) throw Error(fmt::format("{}: missing \"{}\"", where, key));
    return {};
  }
  if (!j[key].is_string()) throw Error(fmt::format("{}: \"{}\" must be a string", where, key));
  return j[key].get<std::string>();
}

}  // namespace pmukit
