// pmukit -- format/ entries ("config:8-15,32-55") parsed into FormatFields, and values spread over
// and gathered from a field's bit ranges.
//
// The grammar is the kernel's (perf's pmu.y): "config", "config1" or "config2", a colon, then a
// comma list of bits "N" and ranges "N-M" with 0 <= N <= M <= 63. perf keeps a field as a bitmap,
// so the order the ranges are written in does not matter and repeats collapse; parse_format
// therefore returns the ranges sorted and merged, and a value's low bits go to the lowest field
// bit first, exactly as perf's pmu_format_value() places them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "pmukit/syntax/pmu_description.h"

namespace pmukit::syntax {

// The three attr words a format can address: config, config1, config2.
using ConfigWords = std::array<std::uint64_t, 3>;

// Parses one format/ file's text (a trailing newline is fine). Throws Error naming the field:
// "format 'umask': 'config:15-8': range 15-8 is reversed".
FormatField parse_format(std::string name, std::string_view text);

// The canonical text of a field, as parse_format would accept it: "config:8-15,32-55".
std::string format_text(const FormatField& field);

// How many value bits the field holds (the sum of its range widths).
unsigned format_width(const FormatField& field);

// The largest value the field holds: 2^width - 1.
std::uint64_t format_max(const FormatField& field);

// Places `value`'s bits into the field's ranges, low bits first, and returns the bits as they land
// in (config, config1, config2). Bits above the field's width are dropped: check against
// format_max() first when that matters.
ConfigWords spread_value(const FormatField& field, std::uint64_t value);

// The inverse of spread_value: the field's value as found in the config words.
std::uint64_t gather_value(const FormatField& field, const ConfigWords& words);

}  // namespace pmukit::syntax
