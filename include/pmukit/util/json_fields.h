// pmukit -- reading fields of the JSON data pmukit carries (platforms/, machine specs), with errors
// that name where in which file a value is wrong.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace pmukit {

// A JSON integer or a "0x..."/decimal string (the data files write addresses as strings, since not
// every JSON reader keeps 64-bit integers). Throws Error "WHERE: 'value' is not a number".
std::uint64_t json_number(const nlohmann::json& j, const std::string& where);

// The string member `key` of `j`; "" when absent and not `required`. Throws Error naming `where`
// and the key when it is missing (and required) or not a string.
std::string json_string(const nlohmann::json& j, const char* key, const std::string& where, bool required = true);

}  // namespace pmukit
