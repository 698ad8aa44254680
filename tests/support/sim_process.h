// pmukit tests -- pmu-sim run as a child process serving a snapshot, for end-to-end pmu-raw tests.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace pmukit::test {

class SimProcess {
 public:
  // Starts `pmu-sim run ROOT ARGS...` and waits (polling, bounded) until its clock page exists.
  SimProcess(const std::filesystem::path& root, const std::vector<std::string>& args = {});
  ~SimProcess();  // SIGTERM, then reaps it
  // SIGKILL, reaped at once: a simulator that died (its pid is gone, not a zombie).
  void kill_now();
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

 private:
  pid_t pid_ = -1;
};

// A running tool whose stdout can be read line by line, for signal tests.
class ToolProcess {
 public:
  // `tool` in the build's tools directory, or any program by its absolute path.
  ToolProcess(const std::string& tool, const std::vector<std::string>& args);
  ~ToolProcess();
  std::string read_line();  // blocks until a line (or EOF: "")
  void signal(int sig);
  int wait();               // exit status, or 128 + signal
  std::string rest();       // everything left on stdout
  void close_output();      // as `| head -1` does after its line: the tool's next write gets EPIPE
  std::string err() const;  // stderr, after wait()
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;
  std::filesystem::path err_path_;
  bool reaped_ = false;
  int status_ = -1;
};

}  // namespace pmukit::test
