// pmukit -- checking a snapshot's PCI sysfs tree before libpci's sysfs method opens files in it
// by itself (pciutils lib/sysfs.c: sysfs_scan, sysfs_get_string, sysfs_get_resources,
// sysfs_setup). libpci follows links the way the host kernel does, so a tree it reads must not
// have links that lead elsewhere than they lead inside the root, nor FIFOs or devices where its
// reads expect attribute files.
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/bdf.h"
#include "pmukit/access/libpci_files.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit {

namespace {

namespace fs = std::filesystem;

// The files libpci opens in a device directory for the fields pmukit asks for (PCI_FILL_IDENT,
// CLASS, CLASS_EXT, BASES, SIZES, NUMA_NODE, IO_FLAGS) and for config space. `config` is always
// stat'ed: its length is the config space size PciConfig::size() reports.
constexpr const char* kLibpciFiles[] = {"vendor",    "device", "class",  "revision",         "resource",
                                        "numa_node", "irq",    "config", "subsystem_vendor", "subsystem_device"};
constexpr std::string_view kConfigFile = "config";

// libpci's scan takes every name not starting with '.' as "%x:%x:%x.%d" and stops with an error
// (leaking the device it allocated) on one it cannot parse or whose domain exceeds 0x7fffffff.
Bdf check_name(const fs::path& dir, const std::string& name) {
  auto bdf = Bdf::parse(name);
  if (!bdf || bdf->str() != name || bdf->domain > 0x7fffffff)
    throw Error(
        fmt::format("{}: '{}' is not a PCI address (dddd:bb:dd.f with a domain up to 7fffffff)", dir.string(), name));
  return *bdf;
}

// A device directory's path, for messages only: made when one is needed.
struct DeviceDir {
  const fs::path& devices;
  const std::string& name;
  int fd;
  fs::path path() const { return devices / name; }
};

// Throws the Error for an attribute or config file that is not a regular file.
void refuse_unless_regular(const DeviceDir& dir, const char* name, mode_t mode) {
  if (S_ISLNK(mode))
    throw Error(fmt::format("{}: is a symbolic link; in a snapshot, sysfs attribute and config files are regular "
                            "files",
                            (dir.path() / name).string()));
  if (!S_ISREG(mode))
    throw Error(fmt::format("{}: is {}, not a regular file", (dir.path() / name).string(), file_type_name(mode)));
}

// Where the host kernel takes `p` (libpci opens it so), or "" when that does not exist.
std::string host_resolution(const fs::path& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// A directory libpci enters through its path: inside the root and to the same place for both.
// Returns it opened (O_PATH) as resolved inside the root, or an empty descriptor when it is
// absent (libpci reports that), with its stat. "The same place" is the same file (device and
// inode) the host kernel reaches through `p`: one open and two fstat, no path resolved as text.
UniqueFd open_same_place(const ConfinedRoot& files, const fs::path& p, struct stat& inside) {
  auto r = files.open(p, O_PATH);
  if (!r.fd && (r.err == EXDEV || r.err == ELOOP)) throw Error(files.describe_error(p, r.err));
  if (!r.fd) return {};
  struct stat host {};
  UniqueFd h(::open(p.c_str(), O_PATH | O_CLOEXEC));
  if (::fstat(r.fd.get(), &inside) != 0 || !h || ::fstat(h.get(), &host) != 0 || !same_file(inside, host)) {
    std::string where = host_resolution(p);
    throw Error(fmt::format("{}: a link that leads out of the snapshot ({}): pmukit reads only inside the root",
                            p.string(), where.empty() ? "nowhere" : where));
  }
  return std::move(r.fd);
}

// The types (readdir's d_type) of libpci's files in the directory `dir_fd`, read with getdents64
// straight from the descriptor: one directory read in place of a stat per attribute file, and no
// name kept. `listed` is false when it cannot be listed or holds more than a device directory
// does (then each attribute is stat'ed, bounded as before).
struct LibpciFileTypes {
  bool listed = false;
  std::array<int, std::size(kLibpciFiles)> type{};  // -1: absent from the listing
};

LibpciFileTypes list_libpci_files(int dir_fd) {
  constexpr std::size_t kMostEntries = 512;  // a Linux PCI device directory has a few dozen
  LibpciFileTypes out;
  out.type.fill(-1);
  alignas(8) char buf[16384];
  std::size_t entries = 0;
  for (;;) {
    ssize_t n = ::getdents64(dir_fd, buf, sizeof buf);
    if (n < 0) return out;
    if (n == 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(buf + at);
      at += e->d_reclen;
      std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++entries > kMostEntries) return out;
      for (std::size_t i = 0; i < std::size(kLibpciFiles); ++i)
        if (name == kLibpciFiles[i]) out.type[i] = e->d_type;
    }
  }
  out.listed = true;
  return out;
}

// The attribute `name` of the device directory `dir` (open as `dir_fd`), looked up as libpci
// looks it up: one component below a directory already checked, its final link not followed.
// `type` is its type in the directory's listing: a regular file or a link there needs no stat,
// an absent name is absent; any other type, or a file system that does not say (DT_UNKNOWN), or
// a directory that could not be listed, is stat'ed.
void check_attribute(const DeviceDir& dir, const char* name, const LibpciFileTypes& listed, int type) {
  if (listed.listed && type < 0) return;  // absent: optional, or libpci says which is missing
  if (!listed.listed) type = DT_UNKNOWN;
  if (type == DT_REG) return;
  struct stat st {};
  if (type == DT_LNK)
    st.st_mode = S_IFLNK;
  else if (::fstatat(dir.fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  refuse_unless_regular(dir, name, st.st_mode);
}

// The length of the device's config file, after the checks check_attribute makes (one fstatat,
// whatever the listing said); nullopt when it cannot be stat'ed (absent: libpci says so).
std::optional<std::uint64_t> config_file_size(const DeviceDir& dir) {
  struct stat st {};
  if (::fstatat(dir.fd, "config", &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  refuse_unless_regular(dir, "config", st.st_mode);
  return static_cast<std::uint64_t>(st.st_size);
}

// The text of the regular file `name` of `dir` (checked by check_attribute), at most one page, in
// `buf`: its length, or nullopt when it cannot be opened or read.
std::optional<std::size_t> read_attribute(const DeviceDir& dir, const char* name,
                                          std::array<char, kAttributeLimit + 1>& buf) {
  UniqueFd fd(::openat(dir.fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) return std::nullopt;
  if (!S_ISREG(st.st_mode))  // replaced since check_attribute looked
    throw Error(fmt::format("{}: is {}, not a regular file", (dir.path() / name).string(), file_type_name(st.st_mode)));
  std::size_t len = 0;
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data() + len, buf.size() - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return len;
    len += static_cast<std::size_t>(n);
    if (len > kAttributeLimit)
      throw Error(fmt::format("{}: longer than {} bytes", (dir.path() / name).string(), kAttributeLimit));
  }
}

// parse_hex's rule for one field; the kernel's "0x%016llx" is checked without its trimming and
// from_chars.
bool hex_field(std::string_view f) {
  constexpr auto is_hex = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  };
  if (f.size() == 18 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X') && std::all_of(f.begin() + 2, f.end(), is_hex))
    return true;
  return parse_hex(f).has_value();
}

// Whether `line` holds three hex numbers separated by spaces, as libpci's sscanf "%llx %llx %llx"
// wants them (more fields may follow), and fits its 256-byte fgets buffer.
bool resource_line_parses(std::string_view line) {
  if (line.size() >= 255) return false;
  std::string_view rest = trim(line);
  for (int field = 0; field < 3; ++field) {
    while (rest.starts_with(' ')) rest.remove_prefix(1);
    if (rest.empty()) return false;
    std::size_t end = std::min(rest.find(' '), rest.size());
    if (!hex_field(rest.substr(0, end))) return false;
    rest.remove_prefix(end);
  }
  return true;
}

// libpci reads `resource` with fgets into a 256-byte buffer and sscanf "%llx %llx %llx", and stops
// the whole scan on a line that does not parse -- leaving the FILE it has open behind.
void check_resource(const DeviceDir& dir) {
  std::array<char, kAttributeLimit + 1> buf;
  auto len = read_attribute(dir, "resource", buf);
  if (!len) return;
  std::string_view all(buf.data(), *len);
  if (all.ends_with('\n')) all.remove_suffix(1);
  if (all.empty()) return;
  // 7 + 6 + 4 + 1 lines: all libpci reads (sysfs_get_resources)
  for (int line_no = 1; line_no <= 18; ++line_no) {
    std::size_t end = std::min(all.find('\n'), all.size());
    std::string_view line = all.substr(0, end);
    if (!resource_line_parses(line))
      throw Error(fmt::format("{}: line {} '{}' is not \"start end flags\" in hex", (dir.path() / "resource").string(),
                              line_no, line.substr(0, 60)));
    if (end == all.size()) break;
    all.remove_prefix(end + 1);
  }
}

// A device directory, opened for reading its listing. One the listing of `devices` calls a
// directory is opened below `devices_fd` (the same place for libpci and pmukit, checked), without
// following a link: the host kernel reaches the same directory by the same name. A link (sysfs's
// own form), an entry of unknown type, or one that changed since it was listed, is checked as
// `devices` was, and opened inside the root (an O_PATH descriptor when it cannot be listed).
UniqueFd open_device_dir(const ConfinedRoot& files, const fs::path& devices, int devices_fd, const DirEntry& e) {
  if (devices_fd >= 0 && e.type == DT_DIR) {
    UniqueFd fd(::openat(devices_fd, e.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd) return fd;
  }
  fs::path dir = devices / e.name;
  struct stat st {};
  UniqueFd fd = open_same_place(files, dir, st);
  if (!fd || !S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: not a directory", dir.string()));
  UniqueFd listable(::openat(fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  return listable ? std::move(listable) : std::move(fd);
}

}  // namespace

std::span<const char* const> libpci_device_files() {
  return kLibpciFiles;
}

std::vector<ConfigFileSize> validate_sysfs_tree(const Machine& machine) {
  std::vector<ConfigFileSize> sizes;
  // The live machine's own tree is the kernel's; a tree the user points -O sysfs.path at (as
  // lspci -O does, pmu-rcmap's way of reading a snapshot) is checked like a snapshot's.
  const bool overridden = machine.options().overrides.count("sysfs.path") > 0;
  if (machine.options().pci_dump || (machine.is_live() && !overridden)) return sizes;
  const ConfinedRoot& files = machine.files();
  fs::path devices = machine.param("sysfs.path") / "devices";
  struct stat st {};
  UniqueFd devices_fd = open_same_place(files, devices, st);
  auto entries = files.list(devices, limits::kPciDevices);
  if (!entries) return sizes;
  sizes.reserve(entries->size());
  for (const auto& e : *entries) {
    if (e.name.starts_with('.')) continue;  // libpci passes over these
    Bdf bdf = check_name(devices, e.name);
    UniqueFd dir_fd = open_device_dir(files, devices, devices_fd.get(), e);
    DeviceDir dir{devices, e.name, dir_fd.get()};
    LibpciFileTypes listed = list_libpci_files(dir.fd);
    for (std::size_t i = 0; i < std::size(kLibpciFiles); ++i) {
      if (kLibpciFiles[i] != kConfigFile) {
        check_attribute(dir, kLibpciFiles[i], listed, listed.type[i]);
      } else if (auto size = config_file_size(dir)) {
        sizes.push_back({bdf, *size});
      }
    }
    check_resource(dir);
  }
  std::sort(sizes.begin(), sizes.end(), [](const ConfigFileSize& a, const ConfigFileSize& b) { return a.bdf < b.bdf; });
  return sizes;
}

}  // namespace pmukit
