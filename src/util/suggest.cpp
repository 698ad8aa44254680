// pmukit -- the nearest known name to a misspelt one.
#include "pmukit/util/suggest.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

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

// A name's parts between '_', '.' and '-', in lower case: "unc_m_cas_count.rd" -> unc m cas count rd.
std::vector<std::string> parts_of(std::string_view name) {
  std::vector<std::string> parts(1);
  for (char c : name) {
    if (c == '_' || c == '.' || c == '-') {
      if (!parts.back().empty()) parts.emplace_back();
    } else {
      parts.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (parts.back().empty()) parts.pop_back();
  return parts;
}

// Whether `longer` holds every part of `word`, in order, and more: the same name with a part
// added, as another generation names an event (SPR's unc_m_cas_count.rd, GNR's
// unc_m_cas_count_sch0.rd).
bool has_parts_of(const std::vector<std::string>& word, const std::vector<std::string>& longer) {
  if (word.size() < 2 || longer.size() <= word.size()) return false;
  std::size_t matched = 0;
  for (const auto& part : longer)
    if (matched < word.size() && part == word[matched]) ++matched;
  return matched == word.size();
}

}  // namespace

std::vector<std::string> near_names(std::string_view word, const std::vector<std::string>& candidates,
                                    std::size_t most) {
  const auto parts = parts_of(word);
  std::vector<std::string> widened;  // those with the fewest parts added, in the candidates' order
  std::size_t fewest = SIZE_MAX;
  for (const auto& c : candidates) {
    if (c == word) return {};  // the word is known: nothing to suggest
    const auto theirs = parts_of(c);
    if (!has_parts_of(parts, theirs) || theirs.size() > fewest) continue;
    if (theirs.size() < fewest) widened.clear(), fewest = theirs.size();
    if (widened.size() < most) widened.push_back(c);
  }
  if (!widened.empty()) return widened;
  if (auto near = closest_name(word, candidates)) return {*near};
  return {};
}

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
  const auto near = near_names(word, candidates, 3);
  if (near.empty()) return "";
  std::string names = fmt::format("'{}'", near[0]);
  for (std::size_t i = 1; i < near.size(); ++i)
    names += fmt::format("{}'{}'", i + 1 == near.size() ? " or " : ", ", near[i]);
  return fmt::format(" (did you mean {}?)", names);
}

}  // namespace pmukit
