// pmukit -- model-specific registers through /dev/cpu/N/msr.
//
// On a live machine the msr device is read with pread/pwrite of 8 bytes at offset = MSR number.
// A regular file cannot hold overlapping 8-byte registers at consecutive offsets, so a snapshot's
// dev/cpu/N/msr is a (sparse) regular file with one 8-byte slot per MSR, at offset = MSR * 8.
// The device type, not the caller, decides which layout applies (docs/snapshot-format.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

namespace pmukit {

class Machine;

class MsrDevice {
 public:
  MsrDevice(const Machine& machine, std::filesystem::path path, int cpu);
  ~MsrDevice();
  MsrDevice(const MsrDevice&) = delete;
  MsrDevice& operator=(const MsrDevice&) = delete;

  int cpu() const { return cpu_; }
  const std::filesystem::path& path() const { return path_; }
  // Throws Error("<path>: rdmsr 0x...: <reason>").
  std::uint64_t read(std::uint32_t msr);
  std::optional<std::uint64_t> try_read(std::uint32_t msr);
  // Throws Error("<path>: wrmsr 0x...: <reason and what to do>").
  void write(std::uint32_t msr, std::uint64_t value);
  // Throws the Error a write would meet when the device cannot be opened for writing.
  void check_writable() { open_for(true); }
  // True when backed by a snapshot file (slot layout) rather than the kernel's msr device.
  bool is_snapshot_file();
  // While set, told of every MSR read that succeeded in this process (cpu, MSR): how
  // pmu-discover --capture learns which MSRs discovery read.
  using ReadObserver = std::function<void(int cpu, std::uint32_t msr)>;
  static void set_read_observer(ReadObserver observer);
  // Byte offset of `msr` in the device or file.
  std::uint64_t offset_of(std::uint32_t msr);

 private:
  void open_for(bool write);

  const Machine& machine_;
  std::filesystem::path path_;
  int cpu_;
  int fd_ = -1;
  bool writable_ = false;
  std::optional<bool> regular_file_;
};

}  // namespace pmukit
