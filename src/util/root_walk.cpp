// pmukit -- component-by-component resolution inside a root (openat2 RESOLVE_IN_ROOT's rules).
#include "root_walk.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <string>
#include <vector>

#include "pmukit/util/confined_root.h"

namespace pmukit::detail {

namespace {

constexpr int kMaxLinks = 40;  // Linux MAXSYMLINKS (include/linux/namei.h)

// Appends the non-empty, non-"." components of `p` to `out` (in front when `front`).
void push_components(const std::filesystem::path& p, std::deque<std::string>& out, bool front) {
  std::vector<std::string> parts;
  for (const auto& c : p.relative_path()) {
    std::string s = c.string();
    if (!s.empty() && s != ".") parts.push_back(std::move(s));
  }
  if (front)
    out.insert(out.begin(), parts.begin(), parts.end());
  else
    out.insert(out.end(), parts.begin(), parts.end());
}

int fail(int err) {
  return -err;
}

// The last component: never followed by the kernel (it is not a link, or the caller refused one).
int open_at(int dir, const std::string& name, int flags, mode_t mode) {
  int fd = ::openat(dir, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  return fd >= 0 ? fd : fail(errno);
}

}  // namespace

int walk_open(int root_fd, const std::filesystem::path& rel, int flags, mode_t mode, bool make_dirs) {
  std::deque<std::string> todo;
  push_components(rel, todo, false);
  std::vector<UniqueFd> stack;  // the directories entered below the root, innermost last
  auto cur = [&] { return stack.empty() ? root_fd : stack.back().get(); };
  int links = 0;
  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    if (name == "..") {
      if (!stack.empty()) stack.pop_back();  // ".." of the root is the root
      continue;
    }
    const bool last = todo.empty();
    struct stat st {};
    if (::fstatat(cur(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      int err = errno;
      if (err != ENOENT) return fail(err);
      if (last && (flags & O_CREAT) && !make_dirs) return open_at(cur(), name, flags, mode);
      if (!make_dirs) return fail(ENOENT);
      if (::mkdirat(cur(), name.c_str(), 0755) != 0 && errno != EEXIST) return fail(errno);
      if (::fstatat(cur(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return fail(errno);
    }
    if (S_ISLNK(st.st_mode)) {
      // As open(2): O_PATH | O_NOFOLLOW opens the link itself, O_NOFOLLOW alone refuses it.
      if (last && (flags & O_NOFOLLOW) && !make_dirs)
        return flags & O_PATH ? open_at(cur(), name, flags, mode) : fail(ELOOP);
      if (++links > kMaxLinks) return fail(ELOOP);
      char target[PATH_MAX];
      ssize_t n = ::readlinkat(cur(), name.c_str(), target, sizeof target - 1);
      if (n < 0) return fail(errno);
      if (n == 0) return fail(ENOENT);
      std::filesystem::path t(std::string(target, static_cast<std::size_t>(n)));
      if (t.is_absolute()) stack.clear();  // an absolute link starts again at the root
      push_components(t, todo, true);
      continue;
    }
    if (last && !make_dirs) return open_at(cur(), name, flags, mode);
    if (!S_ISDIR(st.st_mode)) return fail(ENOTDIR);
    int fd = ::openat(cur(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return fail(errno);
    stack.emplace_back(fd);
  }
  // The path ends on a directory (the root, "..", a link to a directory, or a created one).
  int fd = ::openat(cur(), ".", (flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW)) | O_CLOEXEC);
  return fd >= 0 ? fd : fail(errno);
}

}  // namespace pmukit::detail
