// pmukit -- MMIO register windows and the typed MMIORegister32/64 views over them.
//
// A RegisterWindow is one mmap of a file range: a BAR's sysfs resourceN, /dev/mem at the physical
// address, or the same files in a snapshot. One mapping serves a whole window (a discovery table,
// a CoreSight page, an IMC box), never one per register. Offsets are bounds-checked and aligned,
// and loads and stores are volatile in exactly one place (this file's .cpp). A window mapped
// read-only is PROT_READ: a stray write faults instead of being silently dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace pmukit {

class RegisterWindow {
 public:
  // Maps bytes [file_offset, file_offset + length) of `file`; byte 0 is physical address
  // `phys_base`. Throws Error naming the file on open/mmap failure or a file that is too short.
  RegisterWindow(const std::string& file, std::uint64_t file_offset, std::uint64_t length, std::uint64_t phys_base,
                 bool writable);
  // The same over an open descriptor (Machine::open_register); `file` names it in messages.
  RegisterWindow(int fd, const std::string& file, std::uint64_t file_offset, std::uint64_t length,
                 std::uint64_t phys_base, bool writable);
  ~RegisterWindow();
  RegisterWindow(const RegisterWindow&) = delete;
  RegisterWindow& operator=(const RegisterWindow&) = delete;

  std::uint64_t phys_base() const { return phys_base_; }
  std::uint64_t size() const { return length_; }
  bool writable() const { return writable_; }
  // "/sys/bus/pci/devices/0000:6a:03.1/resource0 +0x2000" -- for messages.
  const std::string& source() const { return source_; }
  bool contains(std::uint64_t phys, std::uint64_t len) const {
    return phys >= phys_base_ && len <= length_ && phys - phys_base_ <= length_ - len;
  }

  std::uint32_t read32(std::uint64_t offset) const;
  std::uint64_t read64(std::uint64_t offset) const;  // one 64-bit load
  // For blocks without single-copy-atomic 64-bit access: read hi, lo, hi and retry while the high
  // word moved (at most 1000 times, as Linux arm_cspmu does); throws if it never settles.
  std::uint64_t read64_hilohi(std::uint64_t offset) const;
  void write32(std::uint64_t offset, std::uint32_t value);
  void write64(std::uint64_t offset, std::uint64_t value);       // one 64-bit store
  void write64_lohi(std::uint64_t offset, std::uint64_t value);  // low dword, then high

  // A register's address, bounds and alignment checked once, for a sampling loop that loads it
  // every interval (load32, load64, load64_hilohi below). Valid while the window lives.
  const volatile std::uint32_t* address32(std::uint64_t offset) const;
  const volatile std::uint64_t* address64(std::uint64_t offset) const;
  // The low dword of a 64-bit register read hi-lo-hi (its high dword checked too).
  const volatile std::uint32_t* address_hilohi(std::uint64_t offset) const;

  // While set, told of every register access of every window in this process: the file, the
  // window's range in it and the file offset accessed. How pmu-discover --capture learns which
  // pages of which proven windows discovery read (and copies those, never more).
  using AccessObserver = std::function<void(const std::string& file, std::uint64_t window_offset,
                                            std::uint64_t window_length, std::uint64_t file_offset)>;
  static void set_access_observer(AccessObserver observer);

  // How many mmap() calls all windows have made in this process (benchmarks report it).
  static std::uint64_t mmap_calls();

 private:
  void map_fd(int fd, const std::string& file, std::uint64_t file_offset, std::uint64_t length);
  volatile std::uint8_t* at(std::uint64_t offset, unsigned width) const;
  void check_writable(std::uint64_t offset) const;

  std::string source_;
  std::string file_;
  std::uint64_t file_offset_ = 0;
  std::uint64_t phys_base_ = 0;
  std::uint64_t length_ = 0;
  bool writable_ = false;
  void* map_ = nullptr;
  std::size_t map_len_ = 0;
  std::uint64_t delta_ = 0;  // offset of byte 0 inside the page-aligned mapping
};

// The loads themselves, on addresses a window checked: the only volatile MMIO loads outside it.
inline std::uint32_t load32(const volatile std::uint32_t* at) {
  return *at;
}
inline std::uint64_t load64(const volatile std::uint64_t* at) {
  return *at;
}
// hi, lo, hi, again while the high dword moved (at most kHiLoHiMaxPoll times, as Linux arm_cspmu's
// HILOHI_MAX_POLL). False when it never settled.
constexpr int kHiLoHiMaxPoll = 1000;
inline bool load64_hilohi(const volatile std::uint32_t* lo, std::uint64_t& value) {
  const volatile std::uint32_t* hi = lo + 1;
  std::uint32_t h1 = *hi;
  for (int i = 0; i < kHiLoHiMaxPoll; ++i) {
    std::uint32_t l = *lo;
    std::uint32_t h2 = *hi;
    if (h1 == h2) {
      value = static_cast<std::uint64_t>(h2) << 32 | l;
      return true;
    }
    h1 = h2;
  }
  return false;
}

// A 32-bit register at a fixed offset of a window.
class MMIORegister32 {
 public:
  MMIORegister32(RegisterWindow& w, std::uint64_t offset) : w_(&w), offset_(offset) {}
  std::uint32_t read() const { return w_->read32(offset_); }
  void write(std::uint32_t v) const { w_->write32(offset_, v); }
  std::uint64_t phys() const { return w_->phys_base() + offset_; }

 private:
  RegisterWindow* w_;
  std::uint64_t offset_;
};

// A 64-bit register; `atomic64` says whether the block supports single 64-bit accesses (APMT
// ATOMIC flag, Intel uncore counters). Without it reads are hi-lo-hi and writes lo then hi.
class MMIORegister64 {
 public:
  MMIORegister64(RegisterWindow& w, std::uint64_t offset, bool atomic64) : w_(&w), offset_(offset), atomic_(atomic64) {}
  std::uint64_t read() const { return atomic_ ? w_->read64(offset_) : w_->read64_hilohi(offset_); }
  void write(std::uint64_t v) const { atomic_ ? w_->write64(offset_, v) : w_->write64_lohi(offset_, v); }
  std::uint64_t phys() const { return w_->phys_base() + offset_; }

 private:
  RegisterWindow* w_;
  std::uint64_t offset_;
  bool atomic_;
};

}  // namespace pmukit
