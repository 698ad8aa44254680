// pmukit -- PCI configuration space through libpci (pciutils 3.9).
//
// Two libpci methods: linux-sysfs with sysfs.path under the machine root, and dump for lspci -xxxx
// files. libpci's default error handler calls exit(); here it throws pmukit::Error instead, and
// libpci warnings are collected rather than printed. Writes report failure (libpci and setpci
// only warn). Every config read is counted, so benchmarks can show pmukit reads only what it needs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/util/confined_root.h"

struct pci_access;  // libpci
struct pci_dev;
struct pci_filter;

namespace pmukit {

class Machine;
class PciAccess;

// What libpci knows about a device without walking its config space.
struct PciDeviceInfo {
  Bdf bdf;
  std::uint16_t vendor_id = 0xffff;
  std::uint16_t device_id = 0xffff;
  std::uint32_t class_code = 0;  // class << 16 | subclass << 8 | prog-if
  std::uint8_t revision = 0;
  int numa_node = -1;  // -1: unknown (dump files, non-NUMA machines)
  // From the sysfs `resource` file (sysfs) or the BAR registers (dump). Flags are the low nibble
  // of the BAR register for dumps; sizes are 0 when unknown (a dump cannot know them).
  std::array<std::uint64_t, 6> bar_base{};
  std::array<std::uint64_t, 6> bar_size{};
  std::array<std::uint64_t, 6> bar_ioflags{};  // IORESOURCE_* (sysfs only, 0 otherwise)
  bool sizes_known = false;
};

// The length of one device's sysfs config file, as the tree check found it.
struct ConfigFileSize {
  Bdf bdf;
  std::uint64_t bytes = 0;
};

// One device's configuration space.
class PciConfig {
 public:
  PciConfig(PciAccess& owner, pci_dev* dev, Bdf bdf);

  const Bdf& bdf() const { return bdf_; }
  // nullopt when the read fails: past the readable size, unreadable file, device gone.
  std::optional<std::uint8_t> read8(unsigned offset);
  std::optional<std::uint16_t> read16(unsigned offset);
  std::optional<std::uint32_t> read32(unsigned offset);
  // Throws Error("<bdf> @0x<off>: config read failed").
  std::uint32_t read32_or_throw(unsigned offset);
  // Throw Error("<bdf> @0x<off>: config write failed: <why>") on any failure.
  void write8(unsigned offset, std::uint8_t value);
  void write16(unsigned offset, std::uint16_t value);
  void write32(unsigned offset, std::uint32_t value);
  // Throws the Error a write would, without writing (dump files are read-only; sysfs needs the
  // config file open for writing).
  void check_writable();
  // The first 64 bytes (the type 0, 1 or 2 header) in one read, as lspci reads them: one pread of
  // the sysfs config file where fields of it read one by one cost one each. False, with the
  // warnings of that read dropped, when it fails: the caller reads what it needs one by one then,
  // and those reads say what failed.
  bool read_header(std::array<std::uint8_t, 64>& out);
  // Readable bytes: 4096, 256, 64, or 0 when the config space cannot be read at all.
  unsigned size();
  std::uint64_t read_count() const { return reads_; }
  // Bytes [offset, offset + len) in one read (a sampling loop's counters of this device, dword
  // aligned): one pread of the sysfs config file, kept open from the first call (libpci keeps one
  // device's file open at a time, so alternating devices reopen it); from a dump, libpci's dwords.
  // Throws Error("<bdf> @0x<off>: config read failed ...").
  void read_range(unsigned offset, std::uint8_t* buf, unsigned len);

 private:
  bool read_block(unsigned offset, std::uint8_t* buf, unsigned len);
  void write_block(unsigned offset, const std::uint8_t* buf, unsigned len);

  PciAccess& owner_;
  pci_dev* dev_;
  Bdf bdf_;
  std::optional<unsigned> size_;
  std::uint64_t reads_ = 0;
  UniqueFd range_fd_;  // read_range's config file
};

// lspci-style device selection, parsed and matched by libpci's own filter functions.
class PciFilter {
 public:
  PciFilter();
  ~PciFilter();
  PciFilter(PciFilter&&) noexcept;
  PciFilter& operator=(PciFilter&&) noexcept;
  // -s [[[[domain]:]bus]:][slot][.[func]]; throws UsageError naming the bad field.
  void set_slot(std::string_view spec);
  // -d [vendor]:[device][:class]; throws UsageError naming the bad field.
  void set_id(std::string_view spec);

 private:
  friend class PciAccess;
  std::unique_ptr<pci_filter> f_;
};

class PciAccess {
 public:
  explicit PciAccess(const Machine& machine);
  ~PciAccess();
  PciAccess(const PciAccess&) = delete;
  PciAccess& operator=(const PciAccess&) = delete;

  std::string_view method() const { return method_; }
  // Every device on every domain and bus, sorted by (domain, bus, dev, fn).
  const std::vector<PciDeviceInfo>& devices() const { return devices_; }
  const PciDeviceInfo* find(const Bdf& bdf) const;
  // Throws Error if the device does not exist.
  PciConfig& config(const Bdf& bdf);
  bool matches(const Bdf& bdf, PciFilter& filter);
  // Names from the pci.ids database (libpci pci_lookup_name; udev hwdb off for repeatable output).
  std::string vendor_device_name(std::uint16_t vendor, std::uint16_t device);
  std::string class_name(std::uint32_t class_code);

  // Warnings libpci raised so far ("Cannot open .../config"); the list is emptied. With a BDF:
  // those raised while reading that device (the scan's and every config read's).
  std::vector<std::string> take_warnings();
  std::vector<std::string> take_warnings(const Bdf& bdf);
  std::uint64_t total_config_reads() const;

 private:
  friend class PciConfig;
  template <class F>
  auto call(F&& f);  // runs a libpci call with pmukit's error/warning handlers bound
  template <class F>
  auto call_for(const Bdf& bdf, F&& f);  // the same, its warnings filed under `bdf`

  const Machine* machine_;
  std::string method_;
  std::string sysfs_root_;                         // for config file sizes
  std::vector<ConfigFileSize> config_file_sizes_;  // from the tree check (a snapshot's tree only)
  pci_access* acc_ = nullptr;
  std::vector<PciDeviceInfo> devices_;
  std::map<Bdf, pci_dev*> handles_;
  std::map<Bdf, std::unique_ptr<PciConfig>> configs_;
  std::vector<std::string> warnings_;
  std::map<Bdf, std::vector<std::string>> device_warnings_;
};

// Before libpci's sysfs method reads a snapshot's tree by itself, checks what it will open:
// device names it parses as pmukit does (no name that makes its scan fail halfway), device
// links that lead where they lead inside the root, and the attribute and config files as regular
// files (no FIFO, device or link). Throws Error naming the first offending file. A live machine's
// own tree is the kernel's and is not checked; one named with -O sysfs.path is. Returns the
// length of each device's config file it stat'ed on the way, sorted by BDF.
std::vector<ConfigFileSize> validate_sysfs_tree(const Machine& machine);

}  // namespace pmukit
