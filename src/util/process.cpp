// pmukit -- a process's identity beyond its pid (PID namespace, start time, boot).
#include "pmukit/util/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <mutex>
#include <string>

#include "pmukit/util/text.h"

namespace pmukit {

namespace {

// A small /proc file, read whole (it is never longer than a page here); "" when unreadable.
std::string read_proc(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out(4096, '\0');
  ssize_t n = ::read(fd, out.data(), out.size());
  ::close(fd);
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

std::uint64_t ns_inode(const std::string& proc_dir) {
  struct stat st {};
  return ::stat((proc_dir + "/ns/pid").c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_ino) : 0;
}

std::string read_boot_id() {
  auto text = read_proc("/proc/sys/kernel/random/boot_id");
  return std::string(trim(text));
}

ProcessIdentity read_self();

}  // namespace

std::optional<std::uint64_t> parse_stat_start_time(std::string_view stat) {
  const auto close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // After ") ": field 3 (state) onwards; the start time is field 22, the 20th of them.
  auto fields = split(trim(stat.substr(close + 1)), ' ');
  if (fields.size() < 20) return std::nullopt;
  return parse_u64(fields[19]);
}

std::string sanitize_program_name(std::string_view name) {
  if (name.empty() || name.size() > 32) return "";
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' || c == '-')) return "";
  return std::string(name);
}

// Read once per process (a tool asks for it once per unit lock it takes): a forked child has
// another pid and start time, so it reads its own.
ProcessIdentity ProcessIdentity::self() {
  static std::mutex lock;
  static ProcessIdentity cached;
  const std::lock_guard<std::mutex> hold(lock);
  if (cached.pid != static_cast<long>(::getpid())) cached = read_self();
  return cached;
}

namespace {

ProcessIdentity read_self() {
  ProcessIdentity p;
  p.pid = static_cast<long>(::getpid());
  p.pid_ns = ns_inode("/proc/self");
  p.start_ticks = parse_stat_start_time(read_proc("/proc/self/stat")).value_or(0);
  p.boot_id = read_boot_id();
  p.program = sanitize_program_name(program_invocation_short_name);
  return p;
}

}  // namespace

std::optional<ProcessIdentity> ProcessIdentity::of(long pid) {
  if (pid <= 0) return std::nullopt;
  const std::string dir = "/proc/" + std::to_string(pid);
  auto start = parse_stat_start_time(read_proc(dir + "/stat"));
  if (!start) return std::nullopt;
  ProcessIdentity p;
  p.pid = pid;
  p.pid_ns = ns_inode(dir);
  p.start_ticks = *start;
  p.boot_id = read_boot_id();
  auto comm = read_proc(dir + "/comm");
  p.program = sanitize_program_name(trim(comm));
  return p;
}

bool process_runs(long pid, std::uint64_t start_ticks) {
  if (pid <= 0 || pid > 0x7fffffffL) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  if (start_ticks == 0) return true;
  auto now = ProcessIdentity::of(pid);
  return !now || now->start_ticks == start_ticks;  // unreadable: it runs, we cannot say more
}

}  // namespace pmukit
