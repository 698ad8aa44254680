// pmukit -- amounts of data as perf's .unit files and Intel perfmon's ScaleUnit name them ("MiB"
// for the IMC CAS events, "Bytes" for "64Bytes"): how many bytes one of them is.
#pragma once

#include <optional>
#include <string_view>

namespace pmukit {

struct ByteUnit {
  double bytes = 1;     // bytes per one of the unit
  bool binary = false;  // a power of 1024 (B, KiB, MiB...), else of 1000 (kB, MB...)
};

// "B", "bytes", "Bytes", "KiB", "MiB", "GiB", "TiB", "kB", "KB", "MB", "GB"; nullopt for a unit that
// is not an amount of data ("", "cycles", "GB/s").
std::optional<ByteUnit> byte_unit(std::string_view unit);

}  // namespace pmukit
