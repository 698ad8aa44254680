// pmukit -- time for counting runs, and the flag a signal handler raises to end one.
//
// The production clock: CLOCK_MONOTONIC and nanosleep. Both the tools and the library use it; a
// simulated machine supplies its own Clock (sim/clock.h), which tools take through the same
// interface.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace pmukit {

// Set by a signal handler: sleeps and waits return early when it becomes true.
extern std::atomic<bool> g_interrupted;

// CLOCK_MONOTONIC in nanoseconds, and one nanosleep (EINTR ends it early: callers re-check their
// condition).
std::uint64_t monotonic_ns();
void nap_ns(std::uint64_t ns);

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::uint64_t now_ns() = 0;
  // Returns false when interrupted (g_interrupted) before `t`.
  virtual bool sleep_until(std::uint64_t t_ns) = 0;
  virtual const char* describe() const = 0;  // "real time", "pmu-sim virtual time"
};

// CLOCK_MONOTONIC and nanosleep.
std::unique_ptr<Clock> real_clock();

}  // namespace pmukit
