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
bool place(std::size_t k, std::span<const std::uint32_t> masks, std::span<int, kMaxCounters> owner,
           std::uint32_t& seen) {
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

bool assign_counters(std::span<const std::uint32_t> masks, std::span<unsigned> counter) {
  if (masks.size() > kMaxCounters) return false;  // more events than any box has counters
  // Fewest counters first, ties in event order (an insertion sort: at most 32 events).
  std::size_t order[kMaxCounters];
  for (std::size_t i = 0; i < masks.size(); ++i) {
    std::size_t j = i;
    for (; j > 0 && std::popcount(masks[order[j - 1]]) > std::popcount(masks[i]); --j) order[j] = order[j - 1];
    order[j] = i;
  }
  int owner[kMaxCounters];
  std::fill(std::begin(owner), std::end(owner), kFree);
  for (std::size_t n = 0; n < masks.size(); ++n) {
    std::uint32_t seen = 0;
    if (!place(order[n], masks, owner, seen)) return false;
  }
  for (unsigned c = 0; c < kMaxCounters; ++c)
    if (owner[c] != kFree) counter[static_cast<std::size_t>(owner[c])] = c;
  return true;
}

std::optional<std::vector<unsigned>> assign_counters(const std::vector<std::uint32_t>& masks) {
  std::vector<unsigned> counter(masks.size());
  if (!assign_counters(std::span<const std::uint32_t>(masks), std::span<unsigned>(counter))) return std::nullopt;
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
