// pmukit -- libpci behind exceptions: access setup, device list, config reads and writes.
#include "pmukit/access/pci_access.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <regex>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/privilege.h"
#include "pmukit/util/error.h"

#include "libpci.h"

namespace pmukit {

namespace {

// libpci calls these through C function pointers with printf-style arguments. The error handler
// must not return (PCI_NONRET); throwing unwinds through libpci's C frames, which Debian's
// libpci.so supports (.eh_frame present, checked under ASan).
thread_local std::vector<std::string>* t_warnings = nullptr;

std::string vformat_c(const char* fmt, va_list ap) {
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  return buf;
}

// The GNU attribute, not [[noreturn]]: libpci's hook is a noreturn function-pointer type
// (PCI_NONRET), and clang counts the attribute as part of the type.
__attribute__((noreturn)) void libpci_error(char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = vformat_c(fmt, ap);
  va_end(ap);
  throw Error(msg);
}

void libpci_warning(char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string msg = vformat_c(fmt, ap);
  va_end(ap);
  if (t_warnings) t_warnings->push_back(std::move(msg));
}

void libpci_debug(char*, ...) {}

struct WarningScope {
  explicit WarningScope(std::vector<std::string>* sink) : prev(t_warnings) { t_warnings = sink; }
  ~WarningScope() { t_warnings = prev; }
  std::vector<std::string>* prev;
};

// libpci takes char* for every string parameter.
void set_param(pci_access* a, const char* name, const std::string& value) {
  std::string n(name), v(value);
  libpci().set_param(a, n.data(), v.data());
}

// libpci's dump parser says "Malformed line" without saying which (pciutils 3.9 lib/dump.c). After
// it has refused the file, find the line it means, by its rule: inside a device block, a line
// "OO: " or "OOO: " must continue with two-digit hex bytes separated by single spaces.
std::string malformed_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  static const std::regex header(R"(^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] )");
  static const std::regex data(R"(^[0-9a-fA-F]{2,3}: )");
  static const std::regex bytes(R"(^[0-9a-fA-F]{2}( [0-9a-fA-F]{2})*$)");
  bool in_device = false;
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, header)) {
      in_device = true;
    } else if (line.empty()) {
      in_device = false;
    } else if (in_device && std::regex_search(line, data)) {
      std::string rest = line.substr(line.find(' ') + 1);
      if (!std::regex_match(rest, bytes))
        return fmt::format(" (line {}: '{}')", n, line.size() > 60 ? line.substr(0, 60) + "..." : line);
    }
  }
  return "";
}

}  // namespace

// What libpci filled in for one device (pci_fill_info with the flags the constructor asks for).
PciDeviceInfo device_info(const pci_dev& d, bool sizes_known) {
  PciDeviceInfo info;
  info.bdf = Bdf{static_cast<std::uint32_t>(d.domain), d.bus, d.dev, d.func};
  info.vendor_id = d.vendor_id;
  info.device_id = d.device_id;
  info.class_code = static_cast<std::uint32_t>(d.device_class) << 8 | d.prog_if;
  info.revision = d.rev_id;
  info.numa_node = (d.known_fields & PCI_FILL_NUMA_NODE) ? d.numa_node : -1;
  info.sizes_known = sizes_known;
  for (int i = 0; i < 6; ++i) {
    info.bar_base[i] = d.base_addr[i];
    info.bar_size[i] = d.size[i];
    info.bar_ioflags[i] = (d.known_fields & PCI_FILL_IO_FLAGS) ? d.flags[i] : 0;
  }
  return info;
}

template <class F>
auto PciAccess::call(F&& f) {
  WarningScope scope(&warnings_);
  return f();
}

template <class F>
auto PciAccess::call_for(const Bdf& bdf, F&& f) {
  WarningScope scope(&device_warnings_[bdf]);
  return f();
}

PciAccess::PciAccess(const Machine& machine) : machine_(&machine) {
  acc_ = libpci().alloc();
  acc_->error = libpci_error;
  acc_->warning = libpci_warning;
  acc_->debug = libpci_debug;
  set_param(acc_, "hwdb.disable", "1");  // names from pci.ids only: the same output on every host
  const auto& dump = machine.options().pci_dump;
  try {
    if (dump) {
      acc_->method = PCI_ACCESS_DUMP;
      set_param(acc_, "dump.name", dump->string());
      method_ = "dump";
    } else {
      acc_->method = PCI_ACCESS_SYS_BUS_PCI;
      sysfs_root_ = machine.param("sysfs.path").string();
      set_param(acc_, "sysfs.path", sysfs_root_);
      method_ = "linux-sysfs";
      bool tree = false;
      try {
        tree = machine.files().is_directory(machine.param("sysfs.path") / "devices");
      } catch (const Error&) {
        // no machine root at all: no tree either
      }
      if (!tree) throw Error(fmt::format("{}/devices: no PCI sysfs tree here", sysfs_root_));
      config_file_sizes_ = validate_sysfs_tree(machine);
    }
    call([&] {
      libpci().init(acc_);
      libpci().scan_bus(acc_);
    });
    for (pci_dev* d = acc_->devices; d; d = d->next) {
      call_for(Bdf{static_cast<std::uint32_t>(d->domain), d->bus, d->dev, d->func}, [&] {
        libpci().fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT | PCI_FILL_BASES | PCI_FILL_SIZES |
                                  PCI_FILL_NUMA_NODE | PCI_FILL_IO_FLAGS);
      });
      PciDeviceInfo info = device_info(*d, method_ != "dump");
      handles_[info.bdf] = d;
      devices_.push_back(info);
    }
  } catch (const Error& e) {
    libpci().cleanup(acc_);
    acc_ = nullptr;
    std::string where = dump ? dump->string() : sysfs_root_;
    std::string what = e.what();
    if (dump && what.find("Malformed line") != std::string::npos) what += malformed_line(*dump);
    throw Error(fmt::format("{}: {}", where, what));
  }
  std::sort(devices_.begin(), devices_.end(),
            [](const PciDeviceInfo& a, const PciDeviceInfo& b) { return a.bdf < b.bdf; });
}

PciAccess::~PciAccess() {
  configs_.clear();
  if (acc_) libpci().cleanup(acc_);
}

const PciDeviceInfo* PciAccess::find(const Bdf& bdf) const {
  auto it = std::lower_bound(devices_.begin(), devices_.end(), bdf,
                             [](const PciDeviceInfo& d, const Bdf& b) { return d.bdf < b; });
  return it != devices_.end() && it->bdf == bdf ? &*it : nullptr;
}

PciConfig& PciAccess::config(const Bdf& bdf) {
  if (auto it = configs_.find(bdf); it != configs_.end()) return *it->second;
  auto h = handles_.find(bdf);
  if (h == handles_.end()) throw Error(fmt::format("{}: no such PCI device", bdf.str()));
  return *configs_.emplace(bdf, std::make_unique<PciConfig>(*this, h->second, bdf)).first->second;
}

bool PciAccess::matches(const Bdf& bdf, PciFilter& filter) {
  auto h = handles_.find(bdf);
  if (h == handles_.end()) return false;
  return call([&] { return libpci().filter_match(filter.f_.get(), h->second) != 0; });
}

std::string PciAccess::vendor_device_name(std::uint16_t vendor, std::uint16_t device) {
  char buf[256];
  return call([&] {
    return std::string(libpci().lookup_name(acc_, buf, sizeof buf, PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE,
                                            static_cast<int>(vendor), static_cast<int>(device)));
  });
}

std::string PciAccess::class_name(std::uint32_t class_code) {
  char buf[256];
  const char* name = call([&] {
    return libpci().lookup_name(acc_, buf, sizeof buf, PCI_LOOKUP_CLASS | PCI_LOOKUP_NO_NUMBERS,
                                static_cast<int>(class_code >> 8));
  });
  return name && *name && std::string_view(name) != "<unknown>" ? std::string(name) : std::string("Class");
}

std::vector<std::string> PciAccess::take_warnings() {
  auto all = std::exchange(warnings_, {});
  for (auto& [bdf, list] : device_warnings_)
    for (auto& w : list) all.push_back(std::move(w));
  device_warnings_.clear();
  return all;
}

std::vector<std::string> PciAccess::take_warnings(const Bdf& bdf) {
  auto it = device_warnings_.find(bdf);
  if (it == device_warnings_.end()) return {};
  return std::exchange(it->second, {});
}

std::uint64_t PciAccess::total_config_reads() const {
  std::uint64_t n = 0;
  for (const auto& [bdf, c] : configs_) n += c->read_count();
  return n;
}

// ---- PciConfig ----

PciConfig::PciConfig(PciAccess& owner, pci_dev* dev, Bdf bdf) : owner_(owner), dev_(dev), bdf_(bdf) {}

bool PciConfig::read_block(unsigned offset, std::uint8_t* buf, unsigned len) {
  if (offset + len > 4096 || offset % len != 0) return false;  // libpci treats these as fatal
  ++reads_;
  try {
    return owner_.call_for(bdf_, [&] {
      return libpci().read_block(dev_, static_cast<int>(offset), buf, static_cast<int>(len));
    }) != 0;
  } catch (const Error&) {
    return false;
  }
}

bool PciConfig::read_header(std::array<std::uint8_t, 64>& out) {
  auto& warnings = owner_.device_warnings_[bdf_];  // the list call_for files this device's under
  const std::size_t before = warnings.size();
  if (read_block(0, out.data(), static_cast<unsigned>(out.size()))) return true;
  warnings.resize(before);
  return false;
}

std::optional<std::uint8_t> PciConfig::read8(unsigned offset) {
  std::uint8_t b[1];
  if (!read_block(offset, b, 1)) return std::nullopt;
  return b[0];
}

std::optional<std::uint16_t> PciConfig::read16(unsigned offset) {
  std::uint8_t b[2];
  if (!read_block(offset, b, 2)) return std::nullopt;
  return static_cast<std::uint16_t>(b[0] | b[1] << 8);  // config space is little-endian
}

std::optional<std::uint32_t> PciConfig::read32(unsigned offset) {
  std::uint8_t b[4];
  if (!read_block(offset, b, 4)) return std::nullopt;
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

std::uint32_t PciConfig::read32_or_throw(unsigned offset) {
  if (auto v = read32(offset)) return *v;
  throw Error(fmt::format("{} @{:#x}: config read failed", bdf_.str(), offset));
}

void PciConfig::read_range(unsigned offset, std::uint8_t* buf, unsigned len) {
  if (offset % 4 != 0 || len % 4 != 0 || offset > 4096 || len > 4096 - offset)
    throw Error(fmt::format("{} @{:#x}: config range of {} bytes is unaligned or past 4096", bdf_.str(), offset, len));
  if (owner_.method_ != "linux-sysfs") {
    for (unsigned i = 0; i < len; i += 4) {
      const std::uint32_t v = read32_or_throw(offset + i);
      for (unsigned b = 0; b < 4; ++b) buf[i + b] = static_cast<std::uint8_t>(v >> 8 * b);  // little-endian
    }
    return;
  }
  if (range_fd_.get() < 0) {
    std::string path = fmt::format("{}/devices/{}/config", owner_.sysfs_root_, bdf_.str());
    auto r = owner_.machine_->open_register(path, false);
    if (r.fd.get() < 0) throw SystemError(fmt::format("{}: {}", path, errno_text(r.err)), r.err);
    range_fd_ = std::move(r.fd);
  }
  ++reads_;
  const ssize_t n = ::pread(range_fd_.get(), buf, len, offset);
  if (n != static_cast<ssize_t>(len))
    throw Error(fmt::format("{} @{:#x}: config read failed: {}", bdf_.str(), offset,
                            n < 0 ? errno_text(errno) : fmt::format("{} of {} bytes", n, len)));
}

void PciConfig::write_block(unsigned offset, const std::uint8_t* buf, unsigned len) {
  if (offset + len > 4096 || offset % len != 0)
    throw Error(fmt::format("{} @{:#x}: unaligned or out-of-range config write", bdf_.str(), offset));
  std::vector<std::string> before = owner_.take_warnings(bdf_);
  int ok = 0;
  std::string why;
  try {
    ok = owner_.call_for(bdf_, [&] {
      return libpci().write_block(dev_, static_cast<int>(offset), const_cast<std::uint8_t*>(buf),
                                  static_cast<int>(len));
    });
  } catch (const Error& e) {
    why = e.what();
  }
  auto warnings = owner_.take_warnings(bdf_);
  owner_.device_warnings_[bdf_] = std::move(before);
  if (ok) return;
  if (why.empty() && !warnings.empty()) why = warnings.back();
  if (why.empty()) why = "libpci reported failure";
  if (owner_.method_ == "linux-sysfs") {
    // libpci's message does not carry errno; ask the file itself why it refuses writes.
    std::string path = fmt::format("{}/devices/{}/config", owner_.sysfs_root_, bdf_.str());
    int err = owner_.machine_->files().open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW).err;
    if (err)
      why += fmt::format(": {}{}", errno_text(err), access_hint(*owner_.machine_, HardwareResource::ConfigSpace, err));
  }
  throw Error(fmt::format("{} @{:#x}: config write failed: {}", bdf_.str(), offset, why));
}

void PciConfig::write8(unsigned offset, std::uint8_t value) {
  write_block(offset, &value, 1);
}

void PciConfig::write16(unsigned offset, std::uint16_t value) {
  std::uint8_t b[2] = {static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8)};
  write_block(offset, b, 2);
}

void PciConfig::write32(unsigned offset, std::uint32_t value) {
  std::uint8_t b[4] = {static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8),
                       static_cast<std::uint8_t>(value >> 16), static_cast<std::uint8_t>(value >> 24)};
  write_block(offset, b, 4);
}

void PciConfig::check_writable() {
  if (owner_.method_ != "linux-sysfs")
    throw Error(fmt::format("{}: config space comes from a PCI dump file, which cannot be written", bdf_.str()));
  std::string path = fmt::format("{}/devices/{}/config", owner_.sysfs_root_, bdf_.str());
  int err = owner_.machine_->files().open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW).err;
  if (err == 0) return;
  throw SystemError(
      fmt::format("{}: {}{}", path, errno_text(err), access_hint(*owner_.machine_, HardwareResource::ConfigSpace, err)),
      err);
}

unsigned PciConfig::size() {
  if (size_) return *size_;
  if (owner_.method_ == "linux-sysfs") {
    // The sysfs config file is as long as the readable config space (64 bytes for non-root users).
    // The tree check stat'ed a snapshot's config files already; others are stat'ed here.
    const auto& known = owner_.config_file_sizes_;
    auto it = std::lower_bound(known.begin(), known.end(), bdf_,
                               [](const ConfigFileSize& s, const Bdf& b) { return s.bdf < b; });
    std::optional<off_t> bytes;
    if (it != known.end() && it->bdf == bdf_) {
      bytes = static_cast<off_t>(std::min<std::uint64_t>(it->bytes, 4096));
    } else {
      std::string path = fmt::format("{}/devices/{}/config", owner_.sysfs_root_, bdf_.str());
      if (auto st = owner_.machine_->files().stat(path)) bytes = st->st_size;
    }
    size_ = bytes ? static_cast<unsigned>(std::clamp<off_t>(*bytes, 0, 4096)) : 0u;
    if (*size_ != 0 && *size_ != 64 && *size_ != 256 && *size_ != 4096)
      size_ = *size_ >= 4096 ? 4096u : *size_ >= 256 ? 256u : *size_ >= 64 ? 64u : 0u;
  } else {
    // Dump files hold 64, 256 or 4096 bytes per device; reads past the end fail.
    size_ = read32(0xffc) ? 4096u : read32(0xfc) ? 256u : read32(0x3c) ? 64u : 0u;
  }
  return *size_;
}

// ---- PciFilter ----

PciFilter::PciFilter() : f_(std::make_unique<pci_filter>()) {
  libpci().filter_init(nullptr, f_.get());
}
PciFilter::~PciFilter() = default;
PciFilter::PciFilter(PciFilter&&) noexcept = default;
PciFilter& PciFilter::operator=(PciFilter&&) noexcept = default;

void PciFilter::set_slot(std::string_view spec) {
  std::string s(spec);
  if (const char* err = libpci().filter_parse_slot(f_.get(), s.data()))
    throw UsageError(fmt::format("-s '{}': {}", spec, err));
}

void PciFilter::set_id(std::string_view spec) {
  std::string s(spec);
  if (const char* err = libpci().filter_parse_id(f_.get(), s.data()))
    throw UsageError(fmt::format("-d '{}': {}", spec, err));
}

}  // namespace pmukit
