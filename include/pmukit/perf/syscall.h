// pmukit -- perf_event_open(2) and the few fd operations on its events: the only code that talks
// to the kernel's perf interface. Everything returns -errno instead of throwing, so callers can
// turn the errno into an explanation that names the event (open_error.h).
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>
#include <utility>

namespace pmukit::perf {

// An owned event file descriptor, closed when the object goes away.
class EventFd {
 public:
  EventFd() = default;
  explicit EventFd(int fd) : fd_(fd) {}
  EventFd(EventFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  EventFd& operator=(EventFd&& other) noexcept;
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;
  ~EventFd();

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// perf_event_open(attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC): the new fd, or -errno.
// `attr` is taken by value because the kernel writes the size it expects into it on E2BIG.
int sys_perf_event_open(perf_event_attr attr, pid_t pid, int cpu, int group_fd);

// ioctl(fd, request, arg): 0, or -errno.
int event_ioctl(int fd, unsigned long request, unsigned long arg);

// One read(2) of up to `size` bytes, retried on EINTR: the byte count, or -errno.
long event_read(int fd, void* buf, std::size_t size);

}  // namespace pmukit::perf
