// pmukit benchmarks -- scratch directories for the machines they build, removed at exit.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace pmukit::bench {

// A new /tmp/pmukit-bench-<what>-XXXXXX, deleted with everything in it when the program exits
// (a benchmark builds machines of hundreds of files; repeated runs must not pile them up).
inline std::string scratch_dir(const std::string& what) {
  struct Dirs {
    std::vector<std::string> all;
    ~Dirs() {
      std::error_code ec;
      for (const auto& d : all) std::filesystem::remove_all(d, ec);
    }
  };
  static Dirs dirs;
  std::string dir = "/tmp/pmukit-bench-" + what + "-XXXXXX";
  if (!::mkdtemp(dir.data())) std::abort();
  dirs.all.push_back(dir);
  return dir;
}

}  // namespace pmukit::bench
