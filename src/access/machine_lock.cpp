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
#include "pmukit/util/process.h"
#include "pmukit/util/text.h"

namespace pmukit {

namespace {

// Why the lock file cannot be opened, with what to do: a read-only snapshot cannot be
// programmed (nor recovered) where it is.
std::string open_error(const Machine& machine, const std::filesystem::path& path, int err) {
  if (err == ELOOP)
    return fmt::format("{}: open lock: a symbolic link: pmukit does not write through links", path.string());
  if (err == EROFS || err == EACCES || err == EPERM)
    return fmt::format("{}: cannot create the machine lock ({}): {} is not writable here; programming its registers, "
                       "or restoring them, needs a writable copy (cp -a) or the right permissions",
                       path.string(), errno_text(err), machine.describe());
  return machine.files().describe_error(path, err);
}

}  // namespace

std::string lock_holder_text(std::string_view content) {
  auto words = split(trim(content), ' ');
  auto pid = !words.empty() ? parse_u64(words[0]) : std::nullopt;
  if (!pid || *pid == 0 || *pid > 0x7fffffff || words.size() > 2) return "another pmukit tool";
  std::string program = words.size() == 2 ? sanitize_program_name(words[1]) : "";
  return fmt::format("another {} (pid {})", program.empty() ? "pmukit tool" : program, *pid);
}

MachineLock::MachineLock(const Machine& machine) : path_(machine.param("lock.path")) {
  const auto& files = machine.files();
  machine.check_no_links(path_);  // a link among the lock's directories could lead the write out
  int mkdir_err = 0;
  try {
    files.create_directories(path_.parent_path());
  } catch (const SystemError& e) {
    mkdir_err = e.code();  // the open below says what is wrong
  } catch (const Error&) {
  }
  // Inside the root and never through a link: a lock file planted as a link to a file outside
  // the snapshot must not be created, truncated or written (O_NOFOLLOW: ELOOP).
  auto r = files.open(path_, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (!r.fd) throw Error(open_error(machine, path_, r.err == ENOENT && mkdir_err ? mkdir_err : r.err));
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: the lock is {}, not a regular file", path_.string(), file_type_name(st.st_mode)));
  id_ = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
  fd_ = r.fd.release();
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[64] = {};
    ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    std::string holder = lock_holder_text(std::string_view(buf, n > 0 ? static_cast<std::size_t>(n) : 0));
    ::close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK)
      throw Error(fmt::format("{}: {} is programming this machine's PMUs; one at a time", path_.string(), holder));
    throw_errno(fmt::format("{}: lock", path_.string()), err);
  }
  const auto self = ProcessIdentity::self();
  std::string who = fmt::format("{} {}\n", self.pid, self.program.empty() ? "pmukit" : self.program);
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, who.data(), who.size(), 0);
}

MachineLock::~MachineLock() {
  if (fd_ < 0) return;
  (void)!::ftruncate(fd_, 0);
  ::close(fd_);  // releases the flock
}

}  // namespace pmukit
