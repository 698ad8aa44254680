// pmukit -- the protocol that couples pmu-raw to pmu-sim: a shared clock page.
//
// On hardware, time is CLOCK_MONOTONIC (util/clock.h) and register writes take effect at once. On
// a simulated machine pmu-sim publishes a clock page at <sim.path>/clock. In virtual mode time stands still
// until a client asks for it to advance, so a test that runs `pmu-raw -I 1000` for 5 intervals gets
// exactly 5 s of modelled counts, however long the run really takes. A counting process holds the
// clock at its next read (Clock::hold_at): a workload that moves it further in one request (pmu-sim
// advance) is cut at every read, so that a multiplexed unit turns and a narrow counter is read on
// time, as on hardware. In real-time mode pmu-sim
// steps on its own; a client only uses the page for barriers (waiting until the simulator has seen
// its writes: the page is the direct session's pmu::Settle). A client waiting for its answer blocks on
// the page's answer bell and the server waiting for a request on its doorbell (futexes, never a
// guessed delay), so neither a waiting pmu-raw nor an idle pmu-sim takes CPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "pmukit/pmu/settle.h"
#include "pmukit/util/clock.h"

namespace pmukit {
class Machine;
}

namespace pmukit::sim {

// The clock a counting run goes by on `machine`, and the settle point its direct session waits on
// between phases: pmu-sim's clock page while a pmu-sim serves the machine (the page implements
// both), CLOCK_MONOTONIC and no settle point otherwise. Throws Error when a clock page exists but
// its pmu-sim is gone.
struct MachineClock {
  std::unique_ptr<Clock> clock;
  pmu::Settle* settle = nullptr;  // into *clock; nullptr on hardware
  // pmu-sim's virtual time: the clock stands still until a client asks it to move (sleep_until),
  // so a process that only watches it (pmu-exporter) waits for another to move it.
  bool virtual_time = false;
  bool simulated() const { return settle != nullptr; }
};
MachineClock machine_clock(const Machine& machine);

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
  // Rung (incremented, and its futex woken) after each request: what an idle server sleeps on.
  std::uint32_t doorbell;
  // Rung (incremented, and its futex woken) after each answer: what a waiting client sleeps on.
  std::uint32_t answered;
  // A hold (Clock::hold_at): the process `hold_pid` acts at `hold_ns`, and the server moves no other
  // client's request past it (it answers at hold_ns; the client waits for the hold to move on and
  // asks again). 0 pid: no hold. A hold whose process is gone is ignored.
  std::uint64_t hold_ns;
  std::uint64_t hold_pid;
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
  // A request waiting to be served: the time it asks for (virtual mode; now to settle).
  bool pending(std::uint64_t& seq, std::uint64_t& request_ns) const;
  void complete(std::uint64_t seq, std::uint64_t now_ns);
  // What a request for `request_ns` made at `now_ns` may move the clock to: `request_ns`, or the
  // hold of another live process that comes before it (never before now).
  std::uint64_t limit(std::uint64_t request_ns, std::uint64_t now_ns) const;
  // A client killed while it held the page (SIGKILL) would wedge every later one: its flag is
  // released when its pid is gone.
  void release_dead_client();
  void set_now(std::uint64_t now_ns);
  // The doorbell now; read it before pending(), then wait() sleeps only if no request came since.
  std::uint32_t doorbell() const;
  // Sleeps until the doorbell moves from `seen`, a signal, or `timeout_ns`: no polling.
  void wait(std::uint32_t seen, std::uint64_t timeout_ns) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  SimMode mode_;
  ClockPage* page_ = nullptr;
  // The page's file, locked (flock, exclusive) for the server's life: whether a pmu-sim serves
  // the page is whether the lock is held, which any process can tell, whatever PID namespace it
  // or the server runs in (a pid from another namespace names nobody, or somebody else).
  int lock_fd_ = -1;
};

}  // namespace pmukit::sim
