// pmukit -- mmap-backed register windows. The only place that dereferences mapped registers.
#include "pmukit/access/register_window.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include <fmt/format.h>

#include "pmukit/util/error.h"

namespace pmukit {

namespace {
std::atomic<std::uint64_t> g_mmap_calls{0};
RegisterWindow::AccessObserver g_access_observer;
}  // namespace

void RegisterWindow::set_access_observer(AccessObserver observer) {
  g_access_observer = std::move(observer);
}

std::uint64_t RegisterWindow::mmap_calls() {
  return g_mmap_calls.load();
}

RegisterWindow::RegisterWindow(const std::string& file, std::uint64_t file_offset, std::uint64_t length,
                               std::uint64_t phys_base, bool writable)
    : source_(file_offset ? fmt::format("{} +{:#x}", file, file_offset) : file), phys_base_(phys_base), length_(length),
      writable_(writable) {
  if (length == 0) throw Error(fmt::format("{}: empty register window", source_));
  // O_SYNC makes /dev/mem and resourceN mappings uncached on x86 (as pciutils' physmem does).
  // Callers that open by name hold a real path (no links); O_NOFOLLOW keeps it so, O_NONBLOCK
  // keeps a FIFO from hanging the open.
  int fd =
      ::open(file.c_str(), (writable ? O_RDWR | O_SYNC : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw_errno(fmt::format("{}: open", file), errno);
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)))
      throw Error(fmt::format("{}: is not a device or a regular file", file));
    map_fd(fd, file, file_offset, length);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

RegisterWindow::RegisterWindow(int fd, const std::string& file, std::uint64_t file_offset, std::uint64_t length,
                               std::uint64_t phys_base, bool writable)
    : source_(file_offset ? fmt::format("{} +{:#x}", file, file_offset) : file), phys_base_(phys_base), length_(length),
      writable_(writable) {
  if (length == 0) throw Error(fmt::format("{}: empty register window", source_));
  map_fd(fd, file, file_offset, length);
}

void RegisterWindow::map_fd(int fd, const std::string& file, std::uint64_t file_offset, std::uint64_t length) {
  file_ = file;
  file_offset_ = file_offset;
  const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  constexpr std::uint64_t kMaxOffset = static_cast<std::uint64_t>(INT64_MAX) / 2;  // off_t, with room for rounding
  if (length > kMaxOffset || file_offset > kMaxOffset - length)
    throw Error(fmt::format("{}: window {:#x}+{:#x} is outside any file", file, file_offset, length));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) < file_offset + length) {
    // Touching a mapped page past the end of a regular file raises SIGBUS: refuse up front.
    throw Error(fmt::format("{}: file is {:#x} bytes, window needs {:#x}..{:#x}", file, st.st_size, file_offset,
                            file_offset + length));
  }
  const std::uint64_t map_off = file_offset & ~(page - 1);
  delta_ = file_offset - map_off;
  map_len_ = static_cast<std::size_t>((delta_ + length + page - 1) & ~(page - 1));
  ++g_mmap_calls;
  map_ = ::mmap(nullptr, map_len_, writable_ ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd,
                static_cast<off_t>(map_off));
  if (map_ == MAP_FAILED) {
    int err = errno;
    map_ = nullptr;
    throw_errno(fmt::format("{}: mmap {:#x} bytes at {:#x}", file, map_len_, map_off), err);
  }
}

RegisterWindow::~RegisterWindow() {
  if (map_) ::munmap(map_, map_len_);
}

volatile std::uint8_t* RegisterWindow::at(std::uint64_t offset, unsigned width) const {
  // The address itself must be aligned, not only the offset: a window may start anywhere.
  if ((delta_ + offset) % width != 0 || offset > length_ || length_ - offset < width)
    throw Error(fmt::format("{}: {}-bit access at +{:#x} is outside the {:#x}-byte window or unaligned", source_,
                            width * 8, offset, length_));
  if (g_access_observer) g_access_observer(file_, file_offset_, length_, file_offset_ + offset);
  return static_cast<volatile std::uint8_t*>(map_) + delta_ + offset;
}

void RegisterWindow::check_writable(std::uint64_t offset) const {
  if (!writable_) throw Error(fmt::format("{}: write at +{:#x} to a window mapped read-only", source_, offset));
}

std::uint32_t RegisterWindow::read32(std::uint64_t offset) const {
  return *reinterpret_cast<volatile std::uint32_t*>(at(offset, 4));
}

std::uint64_t RegisterWindow::read64(std::uint64_t offset) const {
  return *reinterpret_cast<volatile std::uint64_t*>(at(offset, 8));
}

std::uint64_t RegisterWindow::read64_hilohi(std::uint64_t offset) const {
  std::uint64_t v = 0;
  if (load64_hilohi(address_hilohi(offset), v)) return v;
  throw Error(fmt::format("{}: 64-bit counter at +{:#x} kept changing its high word", source_, offset));
}

const volatile std::uint32_t* RegisterWindow::address32(std::uint64_t offset) const {
  return reinterpret_cast<volatile std::uint32_t*>(at(offset, 4));
}

const volatile std::uint64_t* RegisterWindow::address64(std::uint64_t offset) const {
  return reinterpret_cast<volatile std::uint64_t*>(at(offset, 8));
}

const volatile std::uint32_t* RegisterWindow::address_hilohi(std::uint64_t offset) const {
  // Two 32-bit accesses: dword alignment is enough (Tegra410 C2C counters sit at 0x...c).
  at(offset + 4, 4);
  return address32(offset);
}

void RegisterWindow::write32(std::uint64_t offset, std::uint32_t value) {
  check_writable(offset);
  *reinterpret_cast<volatile std::uint32_t*>(at(offset, 4)) = value;
}

void RegisterWindow::write64(std::uint64_t offset, std::uint64_t value) {
  check_writable(offset);
  *reinterpret_cast<volatile std::uint64_t*>(at(offset, 8)) = value;
}

void RegisterWindow::write64_lohi(std::uint64_t offset, std::uint64_t value) {
  check_writable(offset);
  at(offset + 4, 4);
  auto* lo = reinterpret_cast<volatile std::uint32_t*>(at(offset, 4));
  lo[0] = static_cast<std::uint32_t>(value);
  lo[1] = static_cast<std::uint32_t>(value >> 32);
}

}  // namespace pmukit
