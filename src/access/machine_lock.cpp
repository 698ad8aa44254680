// pmukit -- the per-unit locks and the short machine lock.
#include "pmukit/access/machine_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <ctime>
#include <string>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/process.h"
#include "pmukit/util/text.h"

namespace pmukit {

namespace {

// Why the lock file cannot be opened, with what to do: a read-only snapshot cannot be
// programmed (nor recovered) where it is.
std::string open_error(const Machine& machine, const std::filesystem::path& path, int err, std::string_view what) {
  if (err == ELOOP)
    return fmt::format("{}: open lock: a symbolic link: pmukit does not write through links", path.string());
  if (err == EROFS || err == EACCES || err == EPERM)
    return fmt::format("{}: cannot create the {} ({}): {} is not writable here; programming its registers, "
                       "or restoring them, needs a writable copy (cp -a) or the right permissions",
                       path.string(), what, errno_text(err), machine.describe());
  return machine.files().describe_error(path, err);
}

// Creates the directories of a lock file inside the root, never through a link (a link among
// them could lead the write out); 0, or the errno creating them failed with (the open after it
// says what is wrong).
int prepare_lock_directory(const Machine& machine, const std::filesystem::path& path) {
  machine.check_no_links(path);
  try {
    machine.files().create_directories(path.parent_path());
  } catch (const SystemError& e) {
    return e.code();
  } catch (const Error&) {
  }
  return 0;
}

// The lock file open as `r` must be a regular file: its device and inode.
int checked_lock_fd(OpenResult r, const std::filesystem::path& path, LockFileId& id) {
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: the lock is {}, not a regular file", path.string(), file_type_name(st.st_mode)));
  id = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  return r.fd.release();
}

constexpr int kLockFlags = O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK;

// Opens (creating) a lock file inside the root, never through a link: a lock file planted as a
// link to a file outside the snapshot must not be created, truncated or written (O_NOFOLLOW).
int open_lock_file(const Machine& machine, const std::filesystem::path& path, std::string_view what, LockFileId& id) {
  const int mkdir_err = prepare_lock_directory(machine, path);
  auto r = machine.files().open(path, kLockFlags, 0644);
  if (!r.fd) throw Error(open_error(machine, path, r.err == ENOENT && mkdir_err ? mkdir_err : r.err, what));
  return checked_lock_fd(std::move(r), path, id);
}

// The same, by name in the lock directory open as `dir` (UnitLocks: its directories are checked
// and created once, not once per unit).
int open_lock_file_at(const Machine& machine, int dir, const std::filesystem::path& path, LockFileId& id) {
  OpenResult r;
  r.fd = UniqueFd(::openat(dir, path.filename().c_str(), kLockFlags | O_CLOEXEC, 0644));
  if (!r.fd) throw Error(open_error(machine, path, errno, "unit lock"));
  return checked_lock_fd(std::move(r), path, id);
}

std::string read_holder(int fd) {
  char buf[64] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  return lock_holder_name(std::string_view(buf, n > 0 ? static_cast<std::size_t>(n) : 0));
}

void write_holder(int fd) {
  const auto self = ProcessIdentity::self();
  std::string who = fmt::format("{} {}\n", self.pid, self.program.empty() ? "pmukit" : self.program);
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, who.data(), who.size(), 0);
}

void release(int fd) {
  if (fd < 0) return;
  (void)!::ftruncate(fd, 0);
  ::close(fd);  // releases the flock
}

}  // namespace

std::string lock_holder_name(std::string_view content) {
  auto words = split(trim(content), ' ');
  auto pid = !words.empty() ? parse_u64(words[0]) : std::nullopt;
  if (!pid || *pid == 0 || *pid > 0x7fffffff || words.size() > 2) return "a pmukit tool";
  std::string program = words.size() == 2 ? sanitize_program_name(words[1]) : "";
  return fmt::format("{} (pid {})", program.empty() ? "a pmukit tool" : program, *pid);
}

std::string lock_holder_text(std::string_view content) {
  auto name = lock_holder_name(content);
  return "another " + (name.starts_with("a pmukit tool") ? name.substr(2) : name);
}

// The machine lock is held for a moment (a tool taking its units), so it is waited for; a holder
// that keeps it longer than kWaitSeconds is stuck, and named.
MachineLock::MachineLock(const Machine& machine) : path_(machine.param("lock.path")) {
  fd_ = open_lock_file(machine, path_, "machine lock", id_);
  const std::uint64_t give_up = monotonic_ns() + std::uint64_t{kWaitSeconds} * 1'000'000'000ull;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK && monotonic_ns() < give_up) {
      const timespec pause{0, 2'000'000};
      ::nanosleep(&pause, nullptr);
      continue;
    }
    const std::string holder = read_holder(fd_);
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw Error(fmt::format("{}: {} has held the machine lock for over {} s while taking its units; it may be "
                              "stopped (kill -CONT) or hung",
                              path_.string(), holder, kWaitSeconds));
    throw_errno(fmt::format("{}: lock", path_.string()), err);
  }
  write_holder(fd_);
}

MachineLock::~MachineLock() {
  release(fd_);
}

UnitInUse::UnitInUse(std::string unit, std::string holder)
    : Error(fmt::format("{} is in use by {}; units no other pmukit tool holds are free to count", unit, holder)),
      unit_(std::move(unit)), holder_(std::move(holder)) {}

std::filesystem::path unit_lock_path(const Machine& machine, std::string_view unit) {
  std::string name;
  for (unsigned char c : unit) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '+' || (c == '.' && !name.empty()))
      name += static_cast<char>(c);
    else
      name += fmt::format("%{:02X}", c);
  }
  return machine.param("units.path") / (name + ".lock");
}

UnitLock::UnitLock(const Machine& machine, std::string_view unit) : UnitLock(machine, unit, -1) {}

UnitLock::UnitLock(const Machine& machine, std::string_view unit, int dir) : path_(unit_lock_path(machine, unit)) {
  fd_ = dir >= 0 ? open_lock_file_at(machine, dir, path_, id_) : open_lock_file(machine, path_, "unit lock", id_);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = read_holder(fd_);
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) throw UnitInUse(std::string(unit), holder);
    throw_errno(fmt::format("{}: lock", path_.string()), err);
  }
  write_holder(fd_);
}

UnitLock::~UnitLock() {
  release(fd_);
}

const UnitLock& UnitLocks::take(std::string_view unit) {
  auto& slot = held_[std::string(unit)];
  if (!slot) {
    try {
      slot = std::make_unique<UnitLock>(machine_, unit, directory(unit));
    } catch (...) {
      held_.erase(std::string(unit));
      throw;
    }
  }
  return *slot;
}

// The directory of the unit locks, checked, created and opened at the first lock taken; -1 where
// it cannot be (each lock then opens its own path, and says what is wrong).
int UnitLocks::directory(std::string_view unit) {
  if (dir_tried_) return dir_.get();
  dir_tried_ = true;
  const auto path = unit_lock_path(machine_, unit);
  if (prepare_lock_directory(machine_, path) != 0) return -1;
  auto r = machine_.files().open(path.parent_path(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (r.fd) dir_ = std::move(r.fd);
  return dir_.get();
}

std::vector<LockFileId> UnitLocks::files() const {
  std::vector<LockFileId> out;
  for (const auto& [name, lock] : held_) out.push_back(lock->file());
  return out;
}

std::vector<std::string> UnitLocks::names() const {
  std::vector<std::string> out;
  for (const auto& [name, lock] : held_) out.push_back(name);
  return out;
}

}  // namespace pmukit
