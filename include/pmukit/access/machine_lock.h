// pmukit -- one register-programming tool at a time per machine: an exclusive flock on the
// machine's lock.path (ROOT/run/pmukit.lock), held for the life of the object.
//
// The file holds "PID PROGRAM\n" of its holder ("4242 pmu-exporter"), so that a refused tool can
// say who programs the machine. Which file the lock is (device and inode) is what the journal
// records about the lock its writer held: a process that holds that same file now knows the
// writer is gone (pmu/journal.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace pmukit {

class Machine;

struct LockFileId {
  std::uint64_t dev = 0, ino = 0;
  bool operator==(const LockFileId&) const = default;
};

class MachineLock {
 public:
  // Throws Error naming the lock file and the program and pid that hold it when another process
  // has it; when the file cannot be created (a read-only snapshot), an Error saying so.
  explicit MachineLock(const Machine& machine);
  ~MachineLock();
  MachineLock(const MachineLock&) = delete;
  MachineLock& operator=(const MachineLock&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // The file this process holds locked.
  const LockFileId& file() const { return id_; }

 private:
  std::filesystem::path path_;
  LockFileId id_;
  int fd_ = -1;
};

// "another pmu-exporter (pid 4242)" from a lock file's "PID PROGRAM" text (an older pmukit wrote
// "PID" alone: "another pmukit tool (pid 4242)"; nothing usable: "another pmukit tool").
std::string lock_holder_text(std::string_view content);

}  // namespace pmukit
