// pmukit -- the per-machine programming lock.
#include "pmukit/access/machine_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit {

MachineLock::MachineLock(const Machine& machine) : path_(machine.param("lock.path")) {
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_errno(fmt::format("{}: open lock", path_.string()), errno);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string holder = try_read_line(path_).value_or("");
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw Error(fmt::format("{}: another pmu-raw{} is programming this machine's PMUs; one at a time", path_.string(),
                              holder.empty() ? "" : " (pid " + holder + ")"));
    throw_errno(fmt::format("{}: lock", path_.string()), err);
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

MachineLock::~MachineLock() {
  if (fd_ < 0) return;
  (void)!::ftruncate(fd_, 0);
  ::close(fd_);  // releases the flock
}

}  // namespace pmukit
