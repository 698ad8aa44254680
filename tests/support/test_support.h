// pmukit tests -- temporary machine roots and running the tools.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace pmukit::test {

// A fresh directory, removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  std::filesystem::path path_;
};

struct RunResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

// Runs build/tools/<tool> with args and returns its exit status and output.
RunResult run_tool(const std::string& tool, const std::vector<std::string>& args);
// Runs any program found on PATH.
RunResult run_program(const std::string& program, const std::vector<std::string>& args);

std::filesystem::path shared_dir();  // ../shared: may be absent (tests using it then skip)
std::filesystem::path source_dir();
// A pid that is certainly dead: a child that has exited and been reaped.
long dead_pid();
// The journals of running (or killed) tools on a machine root: ROOT/run/pmukit/*.journal, sorted.
std::vector<std::filesystem::path> journals(const std::filesystem::path& root);

}  // namespace pmukit::test
