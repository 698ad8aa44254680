// pmukit -- opening, listing and reading files inside a root (openat2 RESOLVE_IN_ROOT or a walk).
#include "pmukit/util/confined_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/open_observer.h"
#include "root_walk.h"

namespace pmukit {

namespace fs = std::filesystem;

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

std::string file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "an unknown kind of file";
}

namespace {

std::atomic<bool> g_force_walk{false};

struct Watch {
  const ConfinedRoot* root = nullptr;
  OpenObserver observer;
};
Watch g_watch;
// 0: not probed, 1: openat2 works, 2: it does not (ENOSYS, or refused by a seccomp filter).
std::atomic<int> g_openat2{0};

int sys_openat2(int dirfd, const char* path, int flags, mode_t mode) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0;; ++attempt) {
    long fd = ::syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a rename or mount raced the ".." checks (openat2(2)); the lookup is safe to retry.
    if (errno != EAGAIN || attempt >= 16) return -errno;
  }
}

bool openat2_usable(int root_fd) {
  int state = g_openat2.load();
  if (state == 0) {
    int fd = sys_openat2(root_fd, ".", O_PATH | O_CLOEXEC, 0);
    state = fd >= 0 ? 1 : 2;
    if (fd >= 0) ::close(fd);
    g_openat2.store(state);
  }
  return state == 1 && !g_force_walk.load();
}

}  // namespace

void set_open_observer(const ConfinedRoot* root, OpenObserver observer) {
  g_watch.root = observer ? root : nullptr;
  g_watch.observer = std::move(observer);
}

bool ConfinedRoot::kernel_resolves() {
  int fd = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  bool usable = fd >= 0 && openat2_usable(fd);
  if (fd >= 0) ::close(fd);
  return usable;
}

void ConfinedRoot::force_walk_for_tests(bool on) {
  g_force_walk.store(on);
}

ConfinedRoot::ConfinedRoot(fs::path root) : root_(std::move(root)) {
  if (root_.empty()) root_ = "/";
  std::error_code ec;
  real_ = fs::canonical(root_, ec);
  if (ec) throw Error(fmt::format("{}: machine root: {}", root_.string(), ec.message()));
  normal_ = fs::absolute(root_, ec).lexically_normal();
  if (normal_.filename().empty()) normal_ = normal_.parent_path();  // "/tmp/x/" -> "/tmp/x"
  if (is_host()) return;                                            // the live machine: plain opens, nothing held open
  fd_ = ::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw_errno(fmt::format("{}: machine root", root_.string()), errno);
}

ConfinedRoot::~ConfinedRoot() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<fs::path> ConfinedRoot::below(const fs::path& p) const {
  // The root's components, then the rest as written: a ".." after the root stays in the result
  // and stops at the root when resolved (it is not normalised away into a path outside it).
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  auto a = abs.begin();
  for (auto r = normal_.begin(); r != normal_.end(); ++r, ++a) {
    while (a != abs.end() && (*a == "." || a->empty())) ++a;
    if (a == abs.end() || *a != *r) return std::nullopt;
  }
  fs::path rel;
  for (; a != abs.end(); ++a)
    if (!a->empty() && *a != ".") rel /= *a;
  return rel;
}

OpenResult ConfinedRoot::open(const fs::path& p, int flags, mode_t mode) const {
  OpenResult r;
  auto rel = is_host() ? std::nullopt : below(p);
  if (g_watch.root == this && g_watch.observer)
    if (auto seen = rel ? rel : below(p)) g_watch.observer(*seen, flags);
  int fd;
  if (!rel) {
    fd = ::open(p.c_str(), flags | O_CLOEXEC, mode);
    if (fd < 0) fd = -errno;
  } else {
    const char* path = rel->empty() ? "." : rel->c_str();
    fd = openat2_usable(fd_) ? sys_openat2(fd_, path, flags | O_CLOEXEC, mode)
                             : detail::walk_open(fd_, *rel, flags, mode, false);
  }
  if (fd >= 0)
    r.fd = UniqueFd(fd);
  else
    r.err = -fd;
  // A path that is absent (or loops) inside the root but exists for the host kernel goes through
  // a link that leads out of the root: say so (EXDEV) rather than "not found".
  if (rel && (r.err == ENOENT || r.err == ELOOP) && escapes(p)) r.err = EXDEV;
  return r;
}

bool ConfinedRoot::escapes(const fs::path& p) const {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return false;
  fs::path host(buf);
  auto rel = host.lexically_relative(real_);
  return rel.empty() || *rel.begin() == "..";
}

std::string ConfinedRoot::describe_error(const fs::path& p, int err) const {
  if (err == EXDEV) {
    char buf[PATH_MAX];
    const char* host = ::realpath(p.c_str(), buf);
    return fmt::format("{}: a link leads out of the machine root {} (to {}); pmukit reads and writes only inside it",
                       p.string(), root_.string(), host ? host : "elsewhere");
  }
  return fmt::format("{}: {}", p.string(), errno_text(err));
}

std::optional<struct stat> ConfinedRoot::stat(const fs::path& p, bool follow) const {
  // O_PATH | O_NOFOLLOW opens a final link itself (its fstat says S_IFLNK).
  auto r = open(p, O_PATH | (follow ? 0 : O_NOFOLLOW));
  struct stat st {};
  if (!r.fd || ::fstat(r.fd.get(), &st) != 0) return std::nullopt;
  return st;
}

bool ConfinedRoot::is_directory(const fs::path& p) const {
  auto st = stat(p);
  return st && S_ISDIR(st->st_mode);
}

std::optional<fs::path> ConfinedRoot::resolve(const fs::path& p) const {
  auto r = open(p, O_PATH);
  if (!r.fd) return std::nullopt;
  char buf[PATH_MAX];
  auto proc = fmt::format("/proc/self/fd/{}", r.fd.get());
  ssize_t n = ::readlink(proc.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return std::nullopt;
  fs::path real(std::string(buf, static_cast<std::size_t>(n)));
  if (is_host() || !below(p)) return real;
  // Said with the root as the caller named it, so that the result is again "below" the root.
  auto rel = real.lexically_relative(real_);
  if (rel.empty() || *rel.begin() == "..") return real;
  return rel == "." ? normal_ : normal_ / rel;
}

std::optional<std::string> ConfinedRoot::read_link(const fs::path& p) const {
  if (g_watch.root == this && g_watch.observer)
    if (auto seen = below(p)) g_watch.observer(*seen, O_PATH | O_NOFOLLOW);
  auto parent = open(p.parent_path(), O_PATH | O_DIRECTORY);
  if (!parent.fd) return std::nullopt;
  char buf[PATH_MAX];
  ssize_t n = ::readlinkat(parent.fd.get(), p.filename().c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

std::optional<std::vector<DirEntry>> ConfinedRoot::list(const fs::path& dir, std::size_t limit) const {
  auto r = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
  if (!r.fd) {
    if (r.err == ELOOP || r.err == EXDEV) throw Error(describe_error(dir, r.err));
    return std::nullopt;
  }
  DIR* d = ::fdopendir(r.fd.get());
  if (!d) return std::nullopt;
  r.fd.release();  // closedir closes it
  std::vector<DirEntry> out;
  while (dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    if (out.size() == limit) {
      ::closedir(d);
      throw Error(fmt::format("{}: more than {} entries; pmukit reads at most that many", dir.string(), limit));
    }
    out.push_back({std::string(name), e->d_type});
  }
  ::closedir(d);
  return out;
}

namespace {

// Reads `fd` (a regular file, opened O_NONBLOCK) to its end; "" and `too_long` past `limit`.
std::optional<std::string> read_all(int fd, std::size_t limit, bool& too_long) {
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return std::nullopt;
    }
    if (n == 0) return text;
    if (text.size() + static_cast<std::size_t>(n) > limit) {
      too_long = true;
      return std::nullopt;
    }
    text.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

namespace {

struct TextRead {
  std::optional<std::string> text;
  int err = 0;
};

}  // namespace

OpenResult ConfinedRoot::open_regular(const fs::path& p) const {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; it is refused below instead.
  // In a snapshot, O_NOFOLLOW: sysfs attributes, /proc files and ACPI tables are regular files,
  // and one that is a link was planted there.
  const bool snapshot = !is_host() && below(p);
  auto r = open(p, O_RDONLY | O_NONBLOCK | O_NOCTTY | (snapshot ? O_NOFOLLOW : 0));
  if (!r.fd) {
    if (r.err == ELOOP && snapshot)
      if (auto st = stat(p, false); st && S_ISLNK(st->st_mode))
        throw Error(fmt::format("{}: is a symbolic link; in a snapshot, sysfs, /proc and ACPI files are regular files",
                                p.string()));
    if (r.err == ELOOP || r.err == EXDEV) throw Error(describe_error(p, r.err));
    return r;
  }
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0) return {UniqueFd(), errno};
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: is {}, not a regular file", p.string(), file_type_name(st.st_mode)));
  return r;
}

// Shared by read_text and read_text_or_throw: the text, or the errno of an absent or unreadable
// file; hostile files (a loop, a link, not a regular file, too long) throw.
static TextRead read_text_impl(const ConfinedRoot& root, const fs::path& p, std::size_t limit) {
  auto r = root.open_regular(p);
  if (!r.fd) return {std::nullopt, r.err};
  bool too_long = false;
  auto text = read_all(r.fd.get(), limit, too_long);
  if (too_long) throw Error(fmt::format("{}: longer than {} bytes", p.string(), limit));
  int err = text ? 0 : errno;
  return {std::move(text), err};
}

std::optional<std::string> ConfinedRoot::read_text(const fs::path& p, std::size_t limit) const {
  return read_text_impl(*this, p, limit).text;
}

std::string ConfinedRoot::read_text_or_throw(const fs::path& p, std::size_t limit) const {
  auto r = read_text_impl(*this, p, limit);
  if (!r.text) throw_errno(p.string(), r.err ? r.err : EIO);
  return std::move(*r.text);
}

std::optional<std::string> ConfinedRoot::read_line(const fs::path& p) const {
  auto text = read_text(p, kAttributeLimit);
  if (!text) return std::nullopt;
  return first_line(*text);
}

std::optional<std::int64_t> ConfinedRoot::read_int(const fs::path& p) const {
  auto line = read_line(p);
  if (!line) return std::nullopt;
  return parse_int_line(*line);
}

void ConfinedRoot::create_directories(const fs::path& dir) const {
  auto rel = is_host() ? std::nullopt : below(dir);
  if (!rel) {
    make_directories(dir);
    return;
  }
  int fd = detail::walk_open(fd_, *rel, O_PATH | O_DIRECTORY, 0, true);
  if (fd < 0) throw_errno(dir.string(), -fd);
  ::close(fd);
}

void ConfinedRoot::write_file(const fs::path& p, std::string_view data) const {
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK;
  auto r = open(p, flags, 0644);
  if (!r.fd && r.err == ENOENT && p.has_parent_path()) {
    create_directories(p.parent_path());
    r = open(p, flags, 0644);
  }
  if (!r.fd)
    throw Error(r.err == ELOOP ? fmt::format("{}: is a symbolic link (or its path loops): pmukit does not write "
                                             "through links",
                                             p.string())
                               : describe_error(p, r.err));
  struct stat st {};
  if (::fstat(r.fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(fmt::format("{}: is {}, not a regular file", p.string(), file_type_name(st.st_mode)));
  for (std::size_t done = 0; done < data.size();) {
    ssize_t n = ::write(r.fd.get(), data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw_errno(p.string(), n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace pmukit
