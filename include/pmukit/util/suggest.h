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

// What a misspelt or foreign `word` may stand for: up to `most` candidates that hold all its parts
// (between '_', '.' and '-'), in order, with the fewest parts added (another generation's name for
// an event, or the word cut short: cas_count -> cas_count_read, cas_count_write); else
// closest_name's answer; else none. None either when `word` is a candidate as it is written.
std::vector<std::string> near_names(std::string_view word, const std::vector<std::string>& candidates,
                                    std::size_t most);

// " (did you mean 'x'?)", " (did you mean 'x' or 'y'?)" for near_names' answer (at most three),
// "" when there is none.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace pmukit
