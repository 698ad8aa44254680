// pmukit fuzz -- Intel uncore discovery tables (discovery::intel::decode_table): the bytes are the
// mapped window the table is read from, qword by qword.
#include <cstring>

#include "fuzz_support.h"
#include "pmukit/families/intel/intel_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto read = [&](std::uint64_t off) -> std::optional<std::uint64_t> {
    if (off > size || size - off < 8) return std::nullopt;
    std::uint64_t v = 0;
    std::memcpy(&v, data + off, 8);  // the table is little-endian, as this host
    return v;
  };
  auto t = pmukit::discovery::intel::decode_table(read, size, "fuzz");
  (void)t;
  return 0;
}
