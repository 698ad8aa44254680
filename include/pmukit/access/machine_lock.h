// pmukit -- one register-programming tool at a time per machine: an exclusive flock on the
// machine's lock.path (ROOT/run/pmukit.lock), held for the life of the object.
#pragma once

#include <filesystem>

namespace pmukit {

class Machine;

class MachineLock {
 public:
  // Throws Error naming the lock file and the pid that holds it when another process has it.
  explicit MachineLock(const Machine& machine);
  ~MachineLock();
  MachineLock(const MachineLock&) = delete;
  MachineLock& operator=(const MachineLock&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace pmukit
