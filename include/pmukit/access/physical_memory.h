// pmukit -- physical addresses to register windows.
//
// A physical address is resolved to the PCI BAR that contains it (from each device's sysfs
// `resource` file) and mapped through that BAR's resourceN file; /dev/mem at offset = address is
// the fallback. resourceN is preferred: it works with IO_STRICT_DEVMEM where /dev/mem refuses a
// range a driver has claimed. When both fail the error says what was tried and why each failed
// (missing file, EPERM from kernel lockdown, STRICT_DEVMEM), and what to do about it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"

namespace pmukit {

class Machine;
class RegisterWindow;

struct BarRegion {
  Bdf bdf;
  int index = 0;            // BAR number: the N of resourceN
  std::uint64_t start = 0;  // physical, inclusive
  std::uint64_t end = 0;    // physical, inclusive
  std::uint64_t flags = 0;  // IORESOURCE_* from the resource file
  std::filesystem::path resource_file;
  bool is_memory() const { return flags & 0x200; }  // IORESOURCE_MEM
  bool contains(std::uint64_t phys, std::uint64_t len) const {
    return phys >= start && len > 0 && phys - start <= end - start && end - phys >= len - 1;
  }
};

class PhysicalMemory {
 public:
  explicit PhysicalMemory(const Machine& machine);
  ~PhysicalMemory();

  // Every memory BAR the sysfs tree lists, parsed once.
  const std::vector<BarRegion>& bars();
  // The first BAR (in bars() order) that holds [phys, phys + len), or nullptr; a binary search
  // over the BARs sorted by start, built with bars().
  const BarRegion* find_bar(std::uint64_t phys, std::uint64_t len);
  // Maps [phys, phys + len); throws Error explaining every attempt.
  std::unique_ptr<RegisterWindow> map(std::uint64_t phys, std::uint64_t len, bool writable);
  // Maps a whole BAR, or [offset, offset+len) of it, through its resourceN file only.
  std::unique_ptr<RegisterWindow> map_bar(const BarRegion& bar, std::uint64_t offset, std::uint64_t len, bool writable);
  // A one-phrase reason for errno on `file` ("EPERM: kernel lockdown [integrity] ...").
  std::string explain(const std::string& file, int err, bool devmem) const;

 private:
  void index_by_start();

  const Machine& machine_;
  std::optional<std::vector<BarRegion>> bars_;
  std::vector<std::size_t> by_start_;       // indices into *bars_, by start address
  std::vector<std::uint64_t> highest_end_;  // highest end among by_start_[0..i]
};

}  // namespace pmukit
