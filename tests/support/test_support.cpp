// pmukit tests -- temp dirs and tool runner.
#include "support/test_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

extern char** environ;

namespace pmukit::test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/pmukit-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {
std::string slurp(int fd) {
  std::string s;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(n));
  return s;
}
}  // namespace

RunResult run_program(const std::string& program, const std::vector<std::string>& args) {
  TempDir tmp;
  auto out_path = tmp / "out", err_path = tmp / "err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  int rc = program.find('/') != std::string::npos
               ? posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), environ)
               : posix_spawnp(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  RunResult r;
  if (rc != 0) {
    r.err = "spawn failed: " + program;
    return r;
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  int fd = ::open(out_path.c_str(), O_RDONLY);
  r.out = slurp(fd);
  ::close(fd);
  fd = ::open(err_path.c_str(), O_RDONLY);
  r.err = slurp(fd);
  ::close(fd);
  return r;
}

RunResult run_tool(const std::string& tool, const std::vector<std::string>& args) {
  return run_program(std::string(PMUKIT_TOOLS_DIR) + "/" + tool, args);
}

std::filesystem::path shared_dir() {
  return PMUKIT_SHARED_DIR;
}
std::filesystem::path source_dir() {
  return PMUKIT_SOURCE_DIR;
}

long dead_pid() {
  pid_t p = ::fork();
  if (p == 0) ::_exit(0);
  int status = 0;
  ::waitpid(p, &status, 0);
  return p;
}

std::vector<std::filesystem::path> journals(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(root / "run/pmukit", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".journal") out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pmukit::test
