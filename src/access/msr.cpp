// pmukit -- /dev/cpu/N/msr access.
#include "pmukit/access/msr.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/privilege.h"
#include "pmukit/util/error.h"

namespace pmukit {

MsrDevice::MsrDevice(const Machine& machine, std::filesystem::path path, int cpu)
    : machine_(machine), path_(std::move(path)), cpu_(cpu) {}

MsrDevice::~MsrDevice() {
  if (fd_ >= 0) ::close(fd_);
}

void MsrDevice::open_for(bool write) {
  if (fd_ >= 0 && (writable_ || !write)) return;
  int fd = ::open(path_.c_str(), (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    throw SystemError(fmt::format("{}: open: {}{}", path_.string(), errno_text(err),
                                  access_hint(machine_, HardwareResource::Msr, err)),
                      err);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  writable_ = write;
}

bool MsrDevice::is_snapshot_file() {
  if (!regular_file_) {
    struct stat st {};
    regular_file_ = ::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  }
  return *regular_file_;
}

std::uint64_t MsrDevice::offset_of(std::uint32_t msr) {
  return is_snapshot_file() ? static_cast<std::uint64_t>(msr) * 8 : msr;
}

std::optional<std::uint64_t> MsrDevice::try_read(std::uint32_t msr) {
  try {
    return read(msr);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::uint64_t MsrDevice::read(std::uint32_t msr) {
  open_for(false);
  std::uint64_t v = 0;
  ssize_t n = ::pread(fd_, &v, sizeof v, static_cast<off_t>(offset_of(msr)));
  if (n != sizeof v) {
    int err = n < 0 ? errno : EIO;
    // The msr driver answers EIO for an MSR the CPU does not implement (rdmsr #GP).
    throw SystemError(fmt::format("{}: rdmsr {:#x}: {}{}", path_.string(), msr, errno_text(err),
                                  err == EIO ? " (MSR not implemented on this CPU)" : ""),
                      err);
  }
  return v;
}

void MsrDevice::write(std::uint32_t msr, std::uint64_t value) {
  open_for(true);
  ssize_t n = ::pwrite(fd_, &value, sizeof value, static_cast<off_t>(offset_of(msr)));
  if (n != sizeof value) {
    int err = n < 0 ? errno : EIO;
    throw SystemError(fmt::format("{}: wrmsr {:#x}: {}{}", path_.string(), msr, errno_text(err),
                                  access_hint(machine_, HardwareResource::Msr, err)),
                      err);
  }
}

}  // namespace pmukit
