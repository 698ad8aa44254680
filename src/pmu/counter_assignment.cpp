// pmukit -- events to counters under per-event counter masks (Kuhn's augmenting paths).
#include "pmukit/pmu/counter_assignment.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace pmukit::pmu {

namespace {

constexpr unsigned kMaxCounters = 32;
constexpr int kFree = -1;

// Gives event k its lowest free counter; when none is free, moves an earlier event to another
// counter it may use (recursively) to free one.
bool place(std::size_t k, const std::vector<std::uint32_t>& masks, std::vector<int>& owner, std::uint32_t& seen) {
  for (unsigned c = 0; c < kMaxCounters; ++c)
    if ((masks[k] >> c & 1) && owner[c] == kFree) {
      owner[c] = static_cast<int>(k);
      return true;
    }
  for (unsigned c = 0; c < kMaxCounters; ++c) {
    const std::uint32_t bit = std::uint32_t{1} << c;
    if (!(masks[k] & bit) || (seen & bit)) continue;
    seen |= bit;
    if (place(static_cast<std::size_t>(owner[c]), masks, owner, seen)) {
      owner[c] = static_cast<int>(k);
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::vector<unsigned>> assign_counters(const std::vector<std::uint32_t>& masks) {
  std::vector<std::size_t> order(masks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return std::popcount(masks[a]) < std::popcount(masks[b]); });
  std::vector<int> owner(kMaxCounters, kFree);
  for (std::size_t k : order) {
    std::uint32_t seen = 0;
    if (!place(k, masks, owner, seen)) return std::nullopt;
  }
  std::vector<unsigned> counter(masks.size());
  for (unsigned c = 0; c < kMaxCounters; ++c)
    if (owner[c] != kFree) counter[static_cast<std::size_t>(owner[c])] = c;
  return counter;
}

std::uint32_t crowded_counters(const std::vector<std::uint32_t>& masks) {
  std::uint32_t all = 0;
  for (auto m : masks) all |= m;
  // Every subset of the counters the events name, smallest first: at most 2^(counters) sets, and a
  // box has at most 8 general counters (UNCORE_PMC_IDX_MAX_GENERIC).
  std::uint32_t best = 0;
  for (std::uint32_t s = all;; s = (s - 1) & all) {
    std::size_t confined = 0;
    for (auto m : masks) confined += (m & ~s) == 0;
    if (s && confined > static_cast<std::size_t>(std::popcount(s)) &&
        (!best || std::popcount(s) < std::popcount(best) || (std::popcount(s) == std::popcount(best) && s < best)))
      best = s;
    if (s == 0) break;
  }
  return best;
}

}  // namespace pmukit::pmu
