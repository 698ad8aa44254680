// pmukit -- the pmu-sim clock page: its server, and the client that is a Clock and a Settle.
#include "pmukit/sim/clock.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"

namespace pmukit::sim {

namespace {

constexpr std::uint64_t kAnswerTimeoutNs = 10'000'000'000ull;

template <class T>
std::atomic_ref<T> at(T& field) {
  return std::atomic_ref<T>(field);
}

// futex(2) on the page's doorbell: the page is a MAP_SHARED file mapping, so the (not private)
// futex is keyed on the file page and reaches the other process.
void ring(std::uint32_t& doorbell) {
  at(doorbell).fetch_add(1);
  ::syscall(SYS_futex, &doorbell, FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

ClockPage* map_page(const std::filesystem::path& path, bool create) {
  int fd = ::open(path.c_str(), (create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR) | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno(path.string(), errno);
  if (create && ::ftruncate(fd, 4096) != 0) {
    int err = errno;
    ::close(fd);
    throw_errno(path.string(), err);
  }
  void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw_errno(fmt::format("{}: mmap", path.string()), err);
  return static_cast<ClockPage*>(p);
}

class SimClock final : public Clock, public pmu::Settle {
 public:
  explicit SimClock(std::filesystem::path path) : path_(std::move(path)), page_(map_page(path_, false)) {
    if (page_->magic != kClockMagic) throw Error(fmt::format("{}: not a pmu-sim clock page", path_.string()));
    pid_t pid = static_cast<pid_t>(page_->server_pid);
    if (::kill(pid, 0) != 0 && errno == ESRCH)
      throw Error(fmt::format("{}: the pmu-sim that wrote it (pid {}) is gone; remove the file or start pmu-sim run",
                              path_.string(), pid));
    mode_ = static_cast<SimMode>(page_->mode);
  }
  ~SimClock() override { ::munmap(page_, 4096); }

  std::uint64_t now_ns() override { return mode_ == SimMode::Virtual ? at(page_->now_ns).load() : monotonic_ns(); }
  bool sleep_until(std::uint64_t t) override {
    if (mode_ == SimMode::RealTime) return real_->sleep_until(t);
    return request(t);
  }
  // A request for the time it already is: answered after the simulator's next step, which has
  // seen every write made so far.
  void settle() override { request(mode_ == SimMode::Virtual ? at(page_->now_ns).load() : 0); }
  bool virtual_time() const { return mode_ == SimMode::Virtual; }
  const char* describe() const override {
    return mode_ == SimMode::Virtual ? "pmu-sim virtual time" : "pmu-sim real time";
  }

 private:
  // One request at a time per page: take the client flag, post, wait for the answer.
  bool request(std::uint64_t t) {
    std::uint64_t zero = 0;
    const std::uint64_t me = static_cast<std::uint64_t>(::getpid());
    std::uint64_t start = monotonic_ns();
    while (!at(page_->client).compare_exchange_weak(zero, me)) {
      zero = 0;
      if (g_interrupted.load() && t != 0) return false;
      check_timeout(start);
      nap_ns(20'000);
    }
    at(page_->request_ns).store(t);
    std::uint64_t seq = at(page_->seq).fetch_add(1) + 1;
    ring(page_->doorbell);
    bool done = true;
    while (at(page_->ack).load() < seq) {
      check_timeout(start);
      nap_ns(20'000);
    }
    at(page_->client).store(0);
    return done && !g_interrupted.load();
  }
  void check_timeout(std::uint64_t start) {
    if (monotonic_ns() - start > kAnswerTimeoutNs) {
      at(page_->client).store(0);
      throw Error(fmt::format("{}: pmu-sim (pid {}) did not answer within 10 s", path_.string(), page_->server_pid));
    }
  }

  std::filesystem::path path_;
  ClockPage* page_;
  SimMode mode_ = SimMode::Virtual;
  std::unique_ptr<Clock> real_ = real_clock();
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
  std::filesystem::create_directories(path_.parent_path());
  // Written under a temporary name and renamed into place: a client that finds the page finds it
  // whole (sized, magic set), never an empty file or a zero magic.
  auto tmp = path_;
  tmp += fmt::format(".{}.tmp", ::getpid());
  page_ = map_page(tmp, true);
  page_->mode = static_cast<std::uint64_t>(mode);
  page_->server_pid = static_cast<std::uint64_t>(::getpid());
  page_->now_ns = 0;
  at(page_->magic).store(kClockMagic);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::munmap(page_, 4096);
    throw_errno(fmt::format("{}: rename to {}", tmp.string(), path_.string()), err);
  }
}

ClockServer::~ClockServer() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  ::munmap(page_, 4096);
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

std::uint32_t ClockServer::doorbell() const {
  return at(page_->doorbell).load();
}

void ClockServer::wait(std::uint32_t seen, std::uint64_t timeout_ns) const {
  timespec ts{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
  ::syscall(SYS_futex, &page_->doorbell, FUTEX_WAIT, seen, &ts, nullptr, 0);  // EAGAIN, EINTR, ETIMEDOUT: done
}

void ClockServer::complete(std::uint64_t seq, std::uint64_t now) {
  at(page_->now_ns).store(now);
  at(page_->ack).store(seq);
}

}  // namespace pmukit::sim
