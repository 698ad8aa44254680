// pmukit -- units of data.
#include "pmukit/util/units.h"

#include <array>
#include <utility>

namespace pmukit {

std::optional<ByteUnit> byte_unit(std::string_view unit) {
  static constexpr std::array<std::pair<std::string_view, ByteUnit>, 11> kUnits{{{"Bytes", {1, true}},
                                                                                 {"bytes", {1, true}},
                                                                                 {"B", {1, true}},
                                                                                 {"KiB", {1024.0, true}},
                                                                                 {"MiB", {1048576.0, true}},
                                                                                 {"GiB", {1073741824.0, true}},
                                                                                 {"TiB", {1099511627776.0, true}},
                                                                                 {"kB", {1e3, false}},
                                                                                 {"KB", {1e3, false}},
                                                                                 {"MB", {1e6, false}},
                                                                                 {"GB", {1e9, false}}}};
  for (const auto& [name, u] : kUnits)
    if (unit == name) return u;
  return std::nullopt;
}

}  // namespace pmukit
