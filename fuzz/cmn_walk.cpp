// pmukit fuzz -- the Arm CMN node walk (discovery::walk_cmn, then the mesh decode): a
// configuration region of 256 MiB whose every qword reads zero except those the input sets. The
// input: the root node's offset (4 bytes, little-endian), then (offset: 4 bytes, value: 8 bytes)
// pairs. Node headers, child pointers and counts, loops, offsets outside the region or unaligned,
// and every part the platform data knows.
#include <cstring>
#include <map>

#include "fuzz_support.h"
#include "pmukit/families/cmn/cmn_walk.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace {

constexpr std::uint64_t kRegion = 256u << 20;

class Sparse final : public pmukit::discovery::CmnRegion {
 public:
  std::map<std::uint64_t, std::uint64_t> qwords;  // by 8-byte-aligned offset
  std::uint64_t size() const override { return kRegion; }
  std::uint64_t read64(std::uint64_t offset) const override {
    if (offset % 8 || offset + 8 > kRegion) __builtin_trap();  // the walk checks before it reads
    auto it = qwords.find(offset);
    return it == qwords.end() ? 0 : it->second;
  }
  std::uint32_t read32(std::uint64_t offset) const override {
    if (offset % 4 || offset + 4 > kRegion) __builtin_trap();
    return static_cast<std::uint32_t>(read64(offset & ~7ull) >> (offset % 8 * 8));
  }
};

template <class T>
T load(const std::uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  Sparse region;
  pmukit::discovery::CmnUnit unit;
  unit.root_offset = load<std::uint32_t>(data) % kRegion;
  for (std::size_t at = 4; at + 12 <= size; at += 12)
    region.qwords[(load<std::uint32_t>(data + at) % kRegion) & ~7ull] = load<std::uint64_t>(data + at + 4);
  std::vector<std::string> problems;
  try {
    pmukit::discovery::walk_cmn(region, *pmukit::platform::Database::builtin().soc().cmn, unit, problems);
  } catch (const pmukit::Error&) {
  }
  return 0;
}
