// pmukit -- time for counting runs, and the protocol that couples pmu-raw to pmu-sim.
//
// On hardware, time is CLOCK_MONOTONIC and register writes take effect at once. On a simulated
// machine pmu-sim publishes a clock page at <sim.path>/clock. In virtual mode time stands still
// until a client asks for it to advance, so a test that runs `pmu-raw -I 1000` for 5 intervals gets
// exactly 5 s of modelled counts, however long the run really takes. In real-time mode pmu-sim
// steps on its own; a client only uses the page for barriers (waiting until the simulator has seen
// its writes). Waiting is polling a shared counter with short sleeps, never a guessed delay.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace pmukit {
class Machine;
}

namespace pmukit::sim {

// Set by a signal handler: sleeps and waits return early when it becomes true.
extern std::atomic<bool> g_interrupted;

// CLOCK_MONOTONIC in nanoseconds, and one nanosleep (EINTR ends it early: callers re-check their
// condition). The pieces both sides of the protocol poll with.
std::uint64_t monotonic_ns();
void nap_ns(std::uint64_t ns);

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::uint64_t now_ns() = 0;
  // Returns false when interrupted (g_interrupted) before `t`.
  virtual bool sleep_until(std::uint64_t t_ns) = 0;
  // Makes sure the writes made so far have taken effect (see RegisterIo::barrier).
  virtual void barrier() {}
  virtual bool simulated() const { return false; }
  virtual const char* describe() const = 0;
};

// CLOCK_MONOTONIC and nanosleep.
std::unique_ptr<Clock> real_clock();
// The pmu-sim clock of this machine when pmu-sim is serving it, otherwise the real clock. Throws
// Error when a clock page exists but its pmu-sim is gone.
std::unique_ptr<Clock> machine_clock(const Machine& machine);

enum class SimMode : std::uint64_t { Virtual = 0, RealTime = 1 };

// The layout of <sim.path>/clock (one cache line of 64-bit fields, native byte order).
struct ClockPage {
  std::uint64_t magic;
  std::uint64_t mode;
  std::uint64_t server_pid;
  std::uint64_t now_ns;
  std::uint64_t request_ns;
  std::uint64_t seq;     // a client's request number
  std::uint64_t ack;     // the last request the server completed
  std::uint64_t client;  // non-zero while a client holds the page
};
constexpr std::uint64_t kClockMagic = 0x314d49534b554d50ull;  // "PMUKSIM1"

// The server side, used by pmu-sim: owns the page, answers requests.
class ClockServer {
 public:
  ClockServer(const Machine& machine, SimMode mode);
  ~ClockServer();  // removes the page
  ClockServer(const ClockServer&) = delete;
  ClockServer& operator=(const ClockServer&) = delete;

  SimMode mode() const { return mode_; }
  std::uint64_t now_ns() const;
  // A request waiting to be served: the time it asks for (virtual mode; now for a barrier).
  bool pending(std::uint64_t& seq, std::uint64_t& request_ns) const;
  void complete(std::uint64_t seq, std::uint64_t now_ns);
  void set_now(std::uint64_t now_ns);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  SimMode mode_;
  ClockPage* page_ = nullptr;
};

}  // namespace pmukit::sim
