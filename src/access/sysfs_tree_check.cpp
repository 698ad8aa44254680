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
#include <cerrno>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/bdf.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit {

namespace {

namespace fs = std::filesystem;

// The files libpci opens in a device directory for the fields pmukit asks for (PCI_FILL_IDENT,
// CLASS, CLASS_EXT, BASES, SIZES, NUMA_NODE, IO_FLAGS) and for config space.
constexpr const char* kLibpciFiles[] = {"vendor",    "device", "class",  "revision",         "resource",
                                        "numa_node", "irq",    "config", "subsystem_vendor", "subsystem_device"};

// libpci's scan takes every name not starting with '.' as "%x:%x:%x.%d" and stops with an error
// (leaking the device it allocated) on one it cannot parse or whose domain exceeds 0x7fffffff.
void check_name(const fs::path& dir, const std::string& name) {
  auto bdf = Bdf::parse(name);
  if (!bdf || bdf->str() != name || bdf->domain > 0x7fffffff)
    throw Error(
        fmt::format("{}: '{}' is not a PCI address (dddd:bb:dd.f with a domain up to 7fffffff)", dir.string(), name));
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

// The entries of the directory `dir_fd` with their types (readdir's d_type), read once: one
// directory read in place of a stat per attribute file. Empty when it cannot be listed or holds
// more than a device directory does (then each attribute is stat'ed, bounded as before).
std::vector<DirEntry> entries_of(int dir_fd) {
  constexpr std::size_t kMostEntries = 512;  // a Linux PCI device directory has a few dozen
  std::vector<DirEntry> out;
  int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (!d) {
    if (fd >= 0) ::close(fd);
    return out;
  }
  while (dirent* e = ::readdir(d)) {
    if (out.size() == kMostEntries) {
      out.clear();
      break;
    }
    out.push_back({e->d_name, e->d_type});
  }
  ::closedir(d);
  return out;
}

// The attribute `name` of the device directory `dir` (open as `dir_fd`), looked up as libpci
// looks it up: one component below a directory already checked, its final link not followed.
// `listed` is the directory's listing: a regular file or a link there needs no stat, an absent
// name is absent; any other type, or a file system that does not say (DT_UNKNOWN), is stat'ed.
void check_attribute(int dir_fd, const fs::path& dir, const char* name, const std::vector<DirEntry>& listed) {
  auto it = std::find_if(listed.begin(), listed.end(), [&](const DirEntry& e) { return e.name == name; });
  if (!listed.empty() && it == listed.end()) return;  // absent: optional, or libpci says which is missing
  unsigned char type = it != listed.end() ? it->type : static_cast<unsigned char>(DT_UNKNOWN);
  if (type == DT_REG) return;
  struct stat st {};
  if (type == DT_LNK)
    st.st_mode = S_IFLNK;
  else if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (S_ISLNK(st.st_mode))
    throw Error(fmt::format("{}: is a symbolic link; in a snapshot, sysfs attribute and config files are regular "
                            "files",
                            (dir / name).string()));
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: is {}, not a regular file", (dir / name).string(), file_type_name(st.st_mode)));
}

// The text of the regular file `name` in `dir_fd` (checked by check_attribute), at most one page;
// nullopt when it cannot be opened or read.
std::optional<std::string> read_attribute(int dir_fd, const fs::path& dir, const char* name) {
  UniqueFd fd(::openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0) return std::nullopt;
  if (!S_ISREG(st.st_mode))  // replaced since check_attribute looked
    throw Error(fmt::format("{}: is {}, not a regular file", (dir / name).string(), file_type_name(st.st_mode)));
  std::string text;
  char buf[kAttributeLimit];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return text;
    if (text.size() + static_cast<std::size_t>(n) > kAttributeLimit)
      throw Error(fmt::format("{}: longer than {} bytes", (dir / name).string(), kAttributeLimit));
    text.append(buf, static_cast<std::size_t>(n));
  }
}

// libpci reads `resource` with fgets into a 256-byte buffer and sscanf "%llx %llx %llx", and stops
// the whole scan on a line that does not parse -- leaving the FILE it has open behind.
void check_resource(int dir_fd, const fs::path& dir) {
  auto text = read_attribute(dir_fd, dir, "resource");
  if (!text) return;
  std::string_view all = *text;
  if (all.ends_with('\n')) all.remove_suffix(1);
  if (all.empty()) return;
  int line_no = 0;
  for (std::string_view line : split(all, '\n')) {
    if (++line_no > 18) break;  // 7 + 6 + 4 + 1 lines: all libpci reads (sysfs_get_resources)
    std::vector<std::string_view> f;
    for (auto field : split(trim(line), ' '))
      if (!field.empty()) f.push_back(field);
    bool ok = line.size() < 255 && f.size() >= 3;
    for (std::size_t i = 0; ok && i < 3; ++i) ok = parse_hex(f[i]).has_value();
    if (!ok)
      throw Error(fmt::format("{}: line {} '{}' is not \"start end flags\" in hex", (dir / "resource").string(),
                              line_no, line.substr(0, 60)));
  }
}

}  // namespace

void validate_sysfs_tree(const Machine& machine) {
  // The live machine's own tree is the kernel's; a tree the user points -O sysfs.path at (as
  // lspci -O does, pmu-rcmap's way of reading a snapshot) is checked like a snapshot's.
  const bool overridden = machine.options().overrides.count("sysfs.path") > 0;
  if (machine.options().pci_dump || (machine.is_live() && !overridden)) return;
  const ConfinedRoot& files = machine.files();
  fs::path devices = machine.param("sysfs.path") / "devices";
  struct stat st {};
  open_same_place(files, devices, st);
  auto entries = files.list(devices, limits::kPciDevices);
  if (!entries) return;
  for (const auto& e : *entries) {
    if (e.name.starts_with('.')) continue;  // libpci passes over these
    check_name(devices, e.name);
    fs::path dir = devices / e.name;
    UniqueFd dir_fd = open_same_place(files, dir, st);
    if (!dir_fd || !S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: not a directory", dir.string()));
    auto listed = entries_of(dir_fd.get());
    for (const char* f : kLibpciFiles) check_attribute(dir_fd.get(), dir, f, listed);
    check_resource(dir_fd.get(), dir);
  }
}

}  // namespace pmukit
