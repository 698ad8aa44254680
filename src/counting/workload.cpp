// pmukit -- the workload a counting run counts over: looked up, spawned, reaped, signalled.
#include "pmukit/counting/workload.h"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "pmukit/util/error.h"

extern char** environ;

namespace pmukit::counting {

namespace {

std::atomic<pid_t> g_child{0};

// An executable regular file (what execve accepts; a directory is EACCES there).
int executable_error(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno;
  if (!S_ISREG(st.st_mode)) return EACCES;
  return ::access(path.c_str(), X_OK) == 0 ? 0 : errno;
}

}  // namespace

void check_workload(const std::vector<std::string>& command) {
  if (command.empty()) return;
  const std::string& name = command[0];
  if (name.find('/') != std::string::npos) {
    if (int err = executable_error(name))
      throw WorkloadError(fmt::format("workload failed: {}: {}; nothing was counted", name, errno_text(err)));
    return;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    std::size_t colon = std::min(dirs.find(':', at), dirs.size());
    std::string dir = dirs.substr(at, colon - at);
    if (executable_error((dir.empty() ? "." : dir) + "/" + name) == 0) return;
    at = colon + 1;
  }
  throw WorkloadError(fmt::format("workload failed: {}: no such command in PATH; nothing was counted", name));
}

pid_t spawn_workload(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw WorkloadError(fmt::format("workload failed: {}: {}", command[0], errno_text(rc)));
  g_child.store(pid);
  return pid;
}

bool reap_workload(pid_t child, int& status, int* signal) {
  int st = 0;
  if (::waitpid(child, &st, WNOHANG) != child) return false;
  status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  if (signal) *signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  g_child.store(0);
  return true;
}

void forward_to_workload(int sig) {
  if (pid_t c = g_child.load(); c > 0 && sig == SIGTERM) ::kill(c, SIGTERM);
}

}  // namespace pmukit::counting
