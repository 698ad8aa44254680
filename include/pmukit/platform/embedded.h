// pmukit -- the files of platforms/, compiled into the library by cmake/embed_files.cmake.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace pmukit::platform {

struct EmbeddedFile {
  std::string_view path;  // relative to platforms/, e.g. "intel/spr.json"
  std::string_view data;
};

std::span<const EmbeddedFile> embedded_files();

inline std::optional<std::string_view> find_embedded(std::string_view path) {
  for (const auto& f : embedded_files())
    if (f.path == path) return f.data;
  return std::nullopt;
}

}  // namespace pmukit::platform
