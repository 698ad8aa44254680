// pmukit -- who programs which PMU unit: one lock file per unit, and a short machine lock.
//
// Tools share a machine unit by unit. A tool that programs a unit holds that unit's lock for the
// whole run: an exclusive flock on units.path/UNIT.lock (ROOT/run/pmukit/uncore_imc_0.lock), the
// file holding "PID PROGRAM\n" of its holder ("4242 pmu-exporter"), so that a refused tool can say
// who counts there. Units nobody holds stay free for a second tool.
//
// The machine lock (lock.path, ROOT/run/pmukit.lock) is held only while a tool takes its units'
// locks, recovers what a killed tool left on them and writes its own journal (pmu/journal.h): those
// steps see one another whole. It is not held for the run; a tool waits for it (a bounded wait).
//
// Which file a lock is (device and inode) is what a journal records about the lock its writer
// held: a process that holds that same file now knows the writer is gone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/util/confined_root.h"
#include "pmukit/util/error.h"

namespace pmukit {

class Machine;

struct LockFileId {
  std::uint64_t dev = 0, ino = 0;
  bool operator==(const LockFileId&) const = default;
};

class MachineLock {
 public:
  // Waits while another tool holds it (at most kWaitSeconds, then an Error naming that tool);
  // when the file cannot be created (a read-only snapshot), an Error saying so.
  explicit MachineLock(const Machine& machine);
  ~MachineLock();
  MachineLock(const MachineLock&) = delete;
  MachineLock& operator=(const MachineLock&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // The file this process holds locked.
  const LockFileId& file() const { return id_; }
  static constexpr int kWaitSeconds = 30;

 private:
  std::filesystem::path path_;
  LockFileId id_;
  int fd_ = -1;
};

// Another process holds the unit's lock: "uncore_imc_0 is in use by pmu-exporter (pid 4242)".
class UnitInUse : public Error {
 public:
  UnitInUse(std::string unit, std::string holder);
  const std::string& unit() const { return unit_; }
  const std::string& holder() const { return holder_; }  // "pmu-exporter (pid 4242)"

 private:
  std::string unit_, holder_;
};

// units.path/UNIT.lock: a unit name as a file name (any byte outside [A-Za-z0-9._+-] as %XX).
std::filesystem::path unit_lock_path(const Machine& machine, std::string_view unit);

class UnitLock {
 public:
  // Never waits: throws UnitInUse when another process holds it; Error when the file cannot be
  // created (a read-only snapshot) or is not a regular file.
  UnitLock(const Machine& machine, std::string_view unit);
  // The same, the file opened by name in the lock directory open as `dir` (-1: by its path).
  UnitLock(const Machine& machine, std::string_view unit, int dir);
  ~UnitLock();
  UnitLock(const UnitLock&) = delete;
  UnitLock& operator=(const UnitLock&) = delete;
  const std::filesystem::path& path() const { return path_; }
  const LockFileId& file() const { return id_; }

 private:
  std::filesystem::path path_;
  LockFileId id_;
  int fd_ = -1;
};

// The unit locks one process holds, by unit name.
class UnitLocks {
 public:
  explicit UnitLocks(const Machine& machine) : machine_(machine) {}
  bool holds(std::string_view unit) const { return held_.count(std::string(unit)) != 0; }
  // Takes it when not held yet (UnitLock's errors).
  const UnitLock& take(std::string_view unit);
  const UnitLock& at(std::string_view unit) const { return *held_.at(std::string(unit)); }
  void release(std::string_view unit) { held_.erase(std::string(unit)); }
  std::vector<LockFileId> files() const;
  std::vector<std::string> names() const;

 private:
  int directory(std::string_view unit);

  const Machine& machine_;
  std::map<std::string, std::unique_ptr<UnitLock>> held_;
  UniqueFd dir_;  // units.path, open once (directory())
  bool dir_tried_ = false;
};

// "pmu-exporter (pid 4242)" from a lock file's "PID PROGRAM" text (an older pmukit wrote "PID"
// alone: "a pmukit tool (pid 4242)"; nothing usable: "a pmukit tool").
std::string lock_holder_name(std::string_view content);
// "another pmu-exporter (pid 4242)", "another pmukit tool (pid 4242)", "another pmukit tool".
std::string lock_holder_text(std::string_view content);

}  // namespace pmukit
