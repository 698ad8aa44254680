// pmukit -- files under a root directory, opened as if the root were "/": no symbolic link,
// absolute or relative, and no ".." leads out of it. The kernel does this with openat2(2) and
// RESOLVE_IN_ROOT (Linux 5.6, fs/namei.c); where openat2 is missing (older kernels, seccomp
// filters that refuse it) a walk resolves one component at a time with O_NOFOLLOW and applies
// the same rules. Reads are bounded and never block: a FIFO, a device or an endless file where a
// text file belongs is an Error naming the file, and no read returns more than its limit.
//
// A snapshot is also how users send their machines in bug reports, so pmukit reads directories
// it did not make, as root: every file under a snapshot root goes through this class.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmukit {

// An owned file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// The result of an open: a descriptor, or the errno that refused it.
struct OpenResult {
  UniqueFd fd;
  int err = 0;
};

// Byte limits of the bounded reads.
inline constexpr std::size_t kAttributeLimit = 4096;      // a sysfs attribute: one page (Linux fs/sysfs/file.c)
inline constexpr std::size_t kProcTextLimit = 16u << 20;  // /proc/cpuinfo of thousands of CPUs, /proc/iomem

struct DirEntry {
  std::string name;
  unsigned char type = 0;  // readdir's d_type: DT_DIR, DT_LNK, DT_REG, ... (DT_UNKNOWN on some file systems)
};

class ConfinedRoot {
 public:
  // Opens the root directory (its own path is followed: the user named it). Throws Error.
  explicit ConfinedRoot(std::filesystem::path root);
  ConfinedRoot(const ConfinedRoot&) = delete;
  ConfinedRoot& operator=(const ConfinedRoot&) = delete;
  ~ConfinedRoot();

  const std::filesystem::path& path() const { return root_; }
  // The root's real path ("/" for the live machine).
  const std::filesystem::path& real_path() const { return real_; }
  // True when the root is this machine's "/": nothing to confine.
  bool is_host() const { return real_ == "/"; }
  // `p` below the root (relative, lexically normal), or nullopt when `p` is not under it.
  std::optional<std::filesystem::path> below(const std::filesystem::path& p) const;

  // open(2) with O_CLOEXEC added. A path under the root is resolved inside it; any other path
  // (an -O override the user named) is opened as given. O_NOFOLLOW refuses a final link (ELOOP).
  // EXDEV: the path is absent or loops inside the root but exists for the host kernel, i.e. a
  // link in it leads out of the root (describe_error says where).
  OpenResult open(const std::filesystem::path& p, int flags, mode_t mode = 0) const;
  // "<p>: <strerror>", or for EXDEV "<p>: a link leads out of the machine root ... (to X)".
  std::string describe_error(const std::filesystem::path& p, int err) const;
  // fstat of what `p` resolves to (of the link itself with follow = false); nullopt if absent.
  std::optional<struct stat> stat(const std::filesystem::path& p, bool follow = true) const;
  bool is_directory(const std::filesystem::path& p) const;
  // The real path `p` resolves to, inside the root; nullopt when it does not exist.
  std::optional<std::filesystem::path> resolve(const std::filesystem::path& p) const;
  // The text of the symbolic link `p` (not followed); nullopt when `p` is not a link.
  std::optional<std::string> read_link(const std::filesystem::path& p) const;
  // The entries of directory `dir` ("." and ".." left out), nullopt when it is absent or not a
  // directory. Throws Error naming `dir` when it has more than `limit` entries.
  std::optional<std::vector<DirEntry>> list(const std::filesystem::path& dir, std::size_t limit) const;

  // Opens the regular file `p` for reading, without blocking: the errno of an absent or
  // unreadable file, or an Error naming it when it is not a regular file, its path loops or leads
  // out of the root, or (in a snapshot) it is itself a symbolic link. read_text's rules.
  OpenResult open_regular(const std::filesystem::path& p) const;
  // The whole text of the regular file `p`, read without blocking, at most `limit` bytes.
  // nullopt when it does not exist or cannot be opened or read. Throws Error naming the file
  // when it is not a regular file (a FIFO, a device, a directory), is longer than `limit`, its
  // path loops or leads out of the root, or (in a snapshot) it is itself a symbolic link.
  std::optional<std::string> read_text(const std::filesystem::path& p, std::size_t limit) const;
  // read_text that throws Error("<p>: <reason>") for an absent or unreadable file too.
  std::string read_text_or_throw(const std::filesystem::path& p, std::size_t limit) const;
  // The first line of a sysfs attribute, trimmed, and the same as an integer ("0x8086", "-1";
  // nullopt when it is not one). read_text's rules with a one-page limit.
  std::optional<std::string> read_line(const std::filesystem::path& p) const;
  std::optional<std::int64_t> read_int(const std::filesystem::path& p) const;

  // mkdir -p of `dir` below the root, through links only where they stay inside it.
  void create_directories(const std::filesystem::path& dir) const;
  // Creates or truncates the regular file `p` below the root (never through a final link) and
  // writes `data`; creates the parent directories. Throws Error naming the file.
  void write_file(const std::filesystem::path& p, std::string_view data) const;

  // Whether this kernel resolves with openat2 (false: the component walk is used).
  static bool kernel_resolves();
  // Test-only: use the component walk even where openat2 works, so tests cover both.
  static void force_walk_for_tests(bool on);

 private:
  bool escapes(const std::filesystem::path& p) const;

  std::filesystem::path root_;
  std::filesystem::path real_;
  std::filesystem::path normal_;  // root_, absolute and lexically normal, for below()
  int fd_ = -1;                   // O_PATH descriptor of the root
};

// "a FIFO", "a character device", ... for messages.
std::string file_type_name(mode_t mode);

}  // namespace pmukit
