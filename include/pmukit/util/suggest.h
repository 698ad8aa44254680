// pmukit -- "did you mean" for a misspelt event, term or PMU name, as perf and git offer.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmukit {

// The candidate a misspelt `word` most likely meant: the one nearest in optimal string alignment
// distance (insertions, deletions, substitutions and swaps of neighbours, ignoring case), when it
// is at most a third of the word's length (at least 1, at most 3); the first such candidate on a
// tie. nullopt when none is that near, or when `word` is a candidate as it is written.
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" for closest_name's answer, "" when there is none.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace pmukit
