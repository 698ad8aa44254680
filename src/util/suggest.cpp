// pmukit -- the nearest known name to a misspelt one.
#include "pmukit/util/suggest.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace pmukit {

namespace {

// Optimal string alignment distance, case folded. Gives up (returns limit + 1) once every
// alignment of the prefixes seen so far costs more than `limit`: a row's minimum never falls in
// the rows after it, swaps included (a swap from two rows up costs no less than the diagonal step
// it skips).
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t n = b.size();
  if ((a.size() > n ? a.size() - n : n - a.size()) > limit) return limit + 1;
  auto fold = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::size_t> before(n + 1), prev(n + 1), row(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    std::size_t best = row[0];
    for (std::size_t j = 1; j <= n; ++j) {
      const bool same = fold(a[i - 1]) == fold(b[j - 1]);
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1]))
        row[j] = std::min(row[j], before[j - 2] + 1);  // two neighbours swapped
      best = std::min(best, row[j]);
    }
    if (best > limit) return limit + 1;
    before.swap(prev);
    prev.swap(row);
  }
  return prev[n];
}

}  // namespace

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    if (c == word) return std::nullopt;                   // the word is known: nothing to suggest
    const std::size_t d = edit_distance(word, c, limit);  // 0: it differs only in case
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  auto near = closest_name(word, candidates);
  return near ? fmt::format(" (did you mean '{}'?)", *near) : std::string();
}

}  // namespace pmukit
