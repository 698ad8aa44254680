// pmukit fuzz -- what the harnesses share: a scratch directory per process for the parsers that
// read files (libpci's dump method, sysfs PMU directories, machine specs).
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace pmukit::fuzz {

// A directory of its own for this fuzzing process, created once (under $TMPDIR).
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/pmukit-fuzz-XXXXXX";
    if (!::mkdtemp(tmpl.data())) std::abort();
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace pmukit::fuzz
