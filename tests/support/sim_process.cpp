// pmukit tests -- child processes for end-to-end runs.
#include "support/sim_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>

#include "pmukit/util/file.h"

extern char** environ;

namespace pmukit::test {

namespace {
pid_t spawn(const std::string& path, const std::vector<std::string>& args, int out_fd, const std::string& err_file) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out_fd >= 0)
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  else
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv{const_cast<char*>(path.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, path.c_str(), &fa, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("spawn " + path);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}
}  // namespace

SimProcess::SimProcess(const std::filesystem::path& root, const std::vector<std::string>& args) {
  std::vector<std::string> a{"run", root.string()};
  a.insert(a.end(), args.begin(), args.end());
  pid_ = spawn(std::string(PMUKIT_TOOLS_DIR) + "/pmu-sim", a, -1, (root / "pmu-sim.err").string());
  // Synchronise on the page appearing (the simulator creates it once it serves), with a bound.
  auto page = root / "run/pmukit-sim/clock";
  for (int i = 0; i < 2000 && !std::filesystem::exists(page); ++i) {
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("pmu-sim exited: " + try_read_file(root / "pmu-sim.err").value_or(""));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!std::filesystem::exists(page)) throw std::runtime_error("pmu-sim did not publish its clock page");
}

SimProcess::~SimProcess() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int st = 0;
  ::waitpid(pid_, &st, 0);
}

void SimProcess::kill_now() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int st = 0;
  ::waitpid(pid_, &st, 0);
  pid_ = -1;
}

ToolProcess::ToolProcess(const std::string& tool, const std::vector<std::string>& args) {
  int fds[2];
  // Close-on-exec: the tool must not hold the read end itself, or closing ours (close_output) would
  // never give it EPIPE.
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  char tmpl[] = "/tmp/pmukit-err-XXXXXX";
  int efd = ::mkstemp(tmpl);
  ::close(efd);
  err_path_ = tmpl;
  pid_ = spawn(tool.starts_with('/') ? tool : std::string(PMUKIT_TOOLS_DIR) + "/" + tool, args, fds[1],
               err_path_.string());
  ::close(fds[1]);
  out_ = fds[0];
}

ToolProcess::~ToolProcess() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait();
  }
  if (out_ >= 0) ::close(out_);
  std::error_code ec;
  std::filesystem::remove(err_path_, ec);
}

void ToolProcess::close_output() {
  if (out_ >= 0) ::close(out_);
  out_ = -1;
}

std::string ToolProcess::read_line() {
  for (;;) {
    auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    char buf[4096];
    ssize_t n = ::read(out_, buf, sizeof buf);
    if (n <= 0) return std::exchange(buffer_, "");
    buffer_.append(buf, static_cast<std::size_t>(n));
  }
}

std::string ToolProcess::rest() {
  char buf[65536];
  ssize_t n;
  while ((n = ::read(out_, buf, sizeof buf)) > 0) buffer_.append(buf, static_cast<std::size_t>(n));
  return std::exchange(buffer_, "");
}

void ToolProcess::signal(int sig) {
  ::kill(pid_, sig);
}

int ToolProcess::wait() {
  if (reaped_) return status_;
  std::string drained = rest();  // a full pipe must not block the child's exit
  buffer_ = drained;
  int st = 0;
  ::waitpid(pid_, &st, 0);
  reaped_ = true;
  status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return status_;
}

std::string ToolProcess::err() const {
  return try_read_file(err_path_).value_or("");
}

}  // namespace pmukit::test
