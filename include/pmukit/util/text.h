// pmukit -- small text helpers: number parsing with errors that name the token, trimming, splitting.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmukit {

// Parses "0x1f", "31", "0b101" (C prefixes; plain digits are decimal). nullopt on any junk.
std::optional<std::uint64_t> parse_u64(std::string_view s);
// Parses a hex number with or without "0x".
std::optional<std::uint64_t> parse_hex(std::string_view s);
// Like parse_u64 but throws UsageError("<what>: '<s>' is not a number").
std::uint64_t parse_u64_or_throw(std::string_view s, std::string_view what);

// std::from_chars for a double (chars_format::general): the same text accepted, the same end, error
// and value, locale-independent, correctly rounded; by glibc's strtod_l in the C locale. Not
// std::from_chars itself: libstdc++'s floating-point from_chars calls fegetround/fesetround, which
// alone made every tool load libm.so.6 at start (9 page faults and its relocations, about a fifth
// of /bin/true's whole run; bench/interval_cpu.py startup).
std::from_chars_result parse_double(const char* first, const char* last, double& value);

std::string_view trim(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
bool iequals(std::string_view a, std::string_view b);
std::string to_lower(std::string_view s);

// The family of a numbered instance name: "uncore_imc" for "uncore_imc_3" (the name ends in '_'
// and digits only); nullopt for any other name.
std::optional<std::string_view> numbered_family(std::string_view name);

// "0x1a2b" with at least `digits` hex digits.
std::string hex(std::uint64_t v, int digits = 0);

}  // namespace pmukit
