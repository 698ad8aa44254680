// pmukit -- the pmu-sim clock page: its server, and the client that is a Clock and a Settle.
#include "pmukit/sim/clock.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::sim {

namespace {

constexpr std::uint64_t kAnswerTimeoutNs = 10'000'000'000ull;
constexpr std::size_t kPageBytes = 4096;
constexpr std::uint64_t kPollNs = 20'000;  // how often a waiting client looks at the page again

template <class T>
std::atomic_ref<T> at(T& field) {
  return std::atomic_ref<T>(field);
}

bool pid_gone(std::uint64_t pid) {
  return pid == 0 || pid > 0x7fffffffull || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
}

// Whether the pmu-sim serving the page open as `fd` has ended: its lock on the file is gone
// (ClockServer holds it exclusively for its life).
bool server_gone(int fd) {
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) return false;  // EWOULDBLOCK: the server holds it
  ::flock(fd, LOCK_UN);
  return true;
}

// futex(2) on the page's doorbell: the page is a MAP_SHARED file mapping, so the (not private)
// futex is keyed on the file page and reaches the other process.
void ring(std::uint32_t& doorbell, int waiters = 1) {
  at(doorbell).fetch_add(1);
  ::syscall(SYS_futex, &doorbell, FUTEX_WAKE, waiters, nullptr, nullptr, 0);
}

// Sleeps while `bell` still reads `seen`, at most kPollNs * 500 (10 ms): the caller then looks
// whether the server is still there. EAGAIN, EINTR, ETIMEDOUT: back to the caller's check.
void wait_bell(std::uint32_t& bell, std::uint32_t seen) {
  constexpr std::uint64_t kMaxWaitNs = kPollNs * 500;
  const timespec ts{0, static_cast<long>(kMaxWaitNs)};
  ::syscall(SYS_futex, &bell, FUTEX_WAIT, seen, &ts, nullptr, 0);
}

ClockPage* map_page(const std::filesystem::path& path, bool create) {
  int fd = ::open(path.c_str(), (create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR) | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw_errno(path.string(), errno);
  if (create && ::ftruncate(fd, kPageBytes) != 0) {
    int err = errno;
    ::close(fd);
    throw_errno(path.string(), err);
  }
  // A page shorter than mapped would SIGBUS the first access: an empty or truncated file (or
  // not a file at all) is an error naming it, before mmap.
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(kPageBytes)) {
    ::close(fd);
    throw Error(fmt::format("{}: {} bytes: not a pmu-sim clock page ({} bytes); restart pmu-sim run", path.string(),
                            S_ISREG(st.st_mode) ? st.st_size : 0, kPageBytes));
  }
  void* p = ::mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw_errno(fmt::format("{}: mmap", path.string()), err);
  return static_cast<ClockPage*>(p);
}

class SimClock final : public Clock, public pmu::Settle {
 public:
  explicit SimClock(std::filesystem::path path) : path_(std::move(path)), page_(map_page(path_, false)) {
    if (page_->magic != kClockMagic) throw Error(fmt::format("{}: not a pmu-sim clock page", path_.string()));
    lock_fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (lock_fd_ < 0) throw_errno(path_.string(), errno);
    if (server_gone(lock_fd_))
      throw Error(fmt::format("{}: the pmu-sim that wrote it (pid {}) is gone; remove the file or start pmu-sim run",
                              path_.string(), page_->server_pid));
    mode_ = static_cast<SimMode>(page_->mode);
  }
  ~SimClock() override {
    ::munmap(page_, kPageBytes);
    ::close(lock_fd_);
  }

  std::uint64_t now_ns() override { return mode_ == SimMode::Virtual ? at(page_->now_ns).load() : monotonic_ns(); }
  bool sleep_until(std::uint64_t t) override {
    if (mode_ == SimMode::RealTime) return real_->sleep_until(t);
    // The server stops the clock at another process's hold before t: once that process has acted
    // and moved its hold on, the rest is asked for again.
    for (;;) {
      if (!request(t, true)) return false;
      const std::uint64_t now = at(page_->now_ns).load();
      if (now >= t) return true;
      if (!wait_for_hold_to_pass(now)) return false;
    }
  }
  void wait_until(std::uint64_t t, std::uint64_t max_real_ns) override {
    if (mode_ == SimMode::RealTime) return Clock::wait_until(t, max_real_ns);
    if (g_interrupted.load()) return nap_ns(max_real_ns);  // a signal came: no faster look at the page
    const std::uint64_t end = monotonic_ns() + max_real_ns;
    while (at(page_->now_ns).load() < t && !g_interrupted.load() && monotonic_ns() < end) nap_ns(kPollNs);
  }
  void hold_at(std::uint64_t t) override {
    if (mode_ != SimMode::Virtual) return;
    if (t == UINT64_MAX) {
      at(page_->hold_pid).store(0);
      return;
    }
    at(page_->hold_ns).store(t);
    at(page_->hold_pid).store(static_cast<std::uint64_t>(::getpid()));
  }
  // A request for the time it already is: answered after the simulator's next step, which has
  // seen every write made so far.
  // Not cut short by a signal: a restore settles between its phases after SIGINT too.
  void settle() override { request(mode_ == SimMode::Virtual ? at(page_->now_ns).load() : 0, false); }
  bool virtual_time() const { return mode_ == SimMode::Virtual; }
  const char* describe() const override {
    return mode_ == SimMode::Virtual ? "pmu-sim virtual time" : "pmu-sim real time";
  }

 private:
  // One request at a time per page: take the client flag, post, wait for the answer. A flag held
  // by a client that died (SIGKILL between taking and releasing it) is taken over. A signal ends
  // an `interruptible` wait (a sleep) at once; the server still answers the request, unread.
  bool request(std::uint64_t t, bool interruptible) {
    const std::uint64_t me = static_cast<std::uint64_t>(::getpid());
    std::uint64_t start = monotonic_ns();
    for (std::uint64_t holder = 0; !at(page_->client).compare_exchange_weak(holder, me);) {
      if (holder != 0 && holder != me && pid_gone(holder)) continue;  // retry with the dead holder's pid
      holder = 0;
      if (interruptible && g_interrupted.load()) return false;
      check_answering(start);
      nap_ns(kPollNs);
    }
    at(page_->request_ns).store(t);
    std::uint64_t seq = at(page_->seq).fetch_add(1) + 1;
    ring(page_->doorbell);
    for (;;) {
      const std::uint32_t bell = at(page_->answered).load();  // before ack: an answer after it rings
      if (at(page_->ack).load() >= seq) break;
      if (interruptible && g_interrupted.load()) break;
      check_answering(start);
      wait_bell(page_->answered, bell);
    }
    at(page_->client).store(0);
    return !g_interrupted.load();
  }
  // Until the hold that stopped the clock at `now` moves past it, or its process is gone.
  bool wait_for_hold_to_pass(std::uint64_t now) {
    const std::uint64_t me = static_cast<std::uint64_t>(::getpid()), start = monotonic_ns();
    for (;;) {
      const std::uint64_t pid = at(page_->hold_pid).load();
      if (pid == 0 || pid == me || at(page_->hold_ns).load() > now || pid_gone(pid)) return true;
      if (g_interrupted.load()) return false;
      if (gone_ || server_gone(lock_fd_)) check_answering(start);
      nap_ns(kPollNs);
    }
  }
  // A dead pmu-sim is an error at once (a restore must not wait on it); a live one that does not
  // answer, after 10 s.
  void check_answering(std::uint64_t start) {
    if (gone_ || server_gone(lock_fd_)) {
      gone_ = true;
      at(page_->client).store(0);
      throw Error(fmt::format("{}: pmu-sim (pid {}) is gone; the registers are written, but nothing simulates them",
                              path_.string(), page_->server_pid));
    }
    if (monotonic_ns() - start > kAnswerTimeoutNs) {
      at(page_->client).store(0);
      throw Error(fmt::format("{}: pmu-sim (pid {}) did not answer within 10 s", path_.string(), page_->server_pid));
    }
  }

  std::filesystem::path path_;
  ClockPage* page_;
  SimMode mode_ = SimMode::Virtual;
  std::unique_ptr<Clock> real_ = real_clock();
  bool gone_ = false;  // the server died: every later request fails at once
  int lock_fd_ = -1;   // the page's file, for server_gone()
};

}  // namespace

MachineClock machine_clock(const Machine& machine) {
  if (machine.is_live()) return {real_clock(), nullptr};
  auto path = machine.param("sim.path") / "clock";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {real_clock(), nullptr};
  auto sim = std::make_unique<SimClock>(path);
  pmu::Settle* settle = sim.get();
  const bool virtual_time = sim->virtual_time();
  return {std::move(sim), settle, virtual_time};
}

ClockServer::ClockServer(const Machine& machine, SimMode mode)
    : path_(machine.param("sim.path") / "clock"), mode_(mode) {
  if (machine.is_live()) throw Error("the live machine: pmu-sim serves a clock page for snapshots only");
  make_directories(path_.parent_path());
  // Written under a temporary name and renamed into place: a client that finds the page finds it
  // whole (sized, magic set), never an empty file or a zero magic.
  auto tmp = path_;
  tmp += fmt::format(".{}.tmp", ::getpid());
  page_ = map_page(tmp, true);
  lock_fd_ = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (lock_fd_ < 0 || ::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::munmap(page_, kPageBytes);
    if (lock_fd_ >= 0) ::close(lock_fd_);
    throw_errno(fmt::format("{}: lock", tmp.string()), err);
  }
  page_->mode = static_cast<std::uint64_t>(mode);
  page_->server_pid = static_cast<std::uint64_t>(::getpid());
  page_->now_ns = 0;
  at(page_->magic).store(kClockMagic);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::munmap(page_, kPageBytes);
    ::close(lock_fd_);
    throw_errno(fmt::format("{}: rename to {}", tmp.string(), path_.string()), err);
  }
}

ClockServer::~ClockServer() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  ::munmap(page_, kPageBytes);
  ::close(lock_fd_);  // releases the lock
}

std::uint64_t ClockServer::now_ns() const {
  return at(page_->now_ns).load();
}
void ClockServer::set_now(std::uint64_t now) {
  at(page_->now_ns).store(now);
}

bool ClockServer::pending(std::uint64_t& seq, std::uint64_t& request_ns) const {
  seq = at(page_->seq).load();
  if (seq == at(page_->ack).load()) return false;
  request_ns = at(page_->request_ns).load();
  return true;
}

void ClockServer::release_dead_client() {
  std::uint64_t holder = at(page_->client).load();
  if (holder != 0 && pid_gone(holder)) at(page_->client).compare_exchange_strong(holder, 0);
}

std::uint32_t ClockServer::doorbell() const {
  return at(page_->doorbell).load();
}

void ClockServer::wait(std::uint32_t seen, std::uint64_t timeout_ns) const {
  timespec ts{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
  ::syscall(SYS_futex, &page_->doorbell, FUTEX_WAIT, seen, &ts, nullptr, 0);  // EAGAIN, EINTR, ETIMEDOUT: done
}

std::uint64_t ClockServer::limit(std::uint64_t request_ns, std::uint64_t now) const {
  const std::uint64_t holder = at(page_->hold_pid).load(), hold = at(page_->hold_ns).load();
  if (holder == 0 || hold >= request_ns || holder == at(page_->client).load() || pid_gone(holder)) return request_ns;
  return std::max(hold, now);
}

void ClockServer::complete(std::uint64_t seq, std::uint64_t now) {
  at(page_->now_ns).store(now);
  at(page_->ack).store(seq);
  ring(page_->answered, INT32_MAX);  // the client waiting for it (blocked on the bell)
}

}  // namespace pmukit::sim
