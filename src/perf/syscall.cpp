// pmukit -- the perf_event_open system call wrapper.
#include "pmukit/perf/syscall.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace pmukit::perf {

EventFd& EventFd::operator=(EventFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

EventFd::~EventFd() {
  if (fd_ >= 0) ::close(fd_);
}

int sys_perf_event_open(perf_event_attr attr, pid_t pid, int cpu, int group_fd) {
  // glibc has no wrapper for this system call.
  long fd = ::syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

int event_ioctl(int fd, unsigned long request, unsigned long arg) {
  return ::ioctl(fd, request, arg) < 0 ? -errno : 0;
}

long event_read(int fd, void* buf, std::size_t size) {
  for (;;) {
    ssize_t n = ::read(fd, buf, size);
    if (n >= 0) return static_cast<long>(n);
    if (errno != EINTR) return -errno;
  }
}

}  // namespace pmukit::perf
