// pmukit -- /dev/cpu/N/msr access.
#include "pmukit/access/msr.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/machine.h"
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
  is_snapshot_file();
  auto r = machine_.open_register(path_, write);
  if (!r.fd)
    throw SystemError(fmt::format("{}: open: {}{}", path_.string(), errno_text(r.err),
                                  access_hint(machine_, HardwareResource::Msr, r.err)),
                      r.err);
  if (fd_ >= 0) ::close(fd_);
  fd_ = r.fd.release();
  writable_ = write;
}

bool MsrDevice::is_snapshot_file() {
  if (!regular_file_) {
    // In a snapshot the file must be a regular file that is not a link (check_register_file
    // throws otherwise); path_ becomes its real path inside the root, so whoever opens it by
    // name (an mmap of the whole file) reaches this same file.
    machine_.check_register_file(path_);
    auto st = machine_.files().stat(path_, false);
    regular_file_ = st && S_ISREG(st->st_mode);
    if (*regular_file_ && !machine_.is_live())
      if (auto real = machine_.files().resolve(path_)) path_ = *real;
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

namespace {
MsrDevice::ReadObserver g_read_observer;
}  // namespace

void MsrDevice::set_read_observer(ReadObserver observer) {
  g_read_observer = std::move(observer);
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
  if (g_read_observer) g_read_observer(cpu_, msr);
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
