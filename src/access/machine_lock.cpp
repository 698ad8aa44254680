// pmukit -- the per-machine programming lock.
#include "pmukit/access/machine_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit {

MachineLock::MachineLock(const Machine& machine) : path_(machine.param("lock.path")) {
  const auto& files = machine.files();
  machine.check_no_links(path_);  // a link among the lock's directories could lead the write out
  try {
    files.create_directories(path_.parent_path());
  } catch (const Error&) {
    // the open below says what is wrong
  }
  // Inside the root and never through a link: a lock file planted as a link to a file outside
  // the snapshot must not be created, truncated or written (O_NOFOLLOW: ELOOP).
  auto r = files.open(path_, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (!r.fd)
    throw Error(r.err == ELOOP
                    ? fmt::format("{}: open lock: a symbolic link: pmukit does not write through links", path_.string())
                    : files.describe_error(path_, r.err));
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: the lock is {}, not a regular file", path_.string(), file_type_name(st.st_mode)));
  fd_ = r.fd.release();
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {};
    ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    std::string holder(trim(std::string_view(buf, n > 0 ? static_cast<std::size_t>(n) : 0)));
    if (!parse_u64(holder)) holder.clear();  // only a pid is worth repeating
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
