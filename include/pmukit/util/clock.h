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
  // Waits until now_ns() >= t_ns, a signal, or `max_real_ns` of real time, whichever comes first,
  // without moving the clock: how a process watches time that another moves (a workload moving
  // pmu-sim's virtual time). By default one nap.
  virtual void wait_until(std::uint64_t t_ns, std::uint64_t max_real_ns);
  // The time this process acts at next (reads its counters, turns a multiplexed unit): no other
  // process moves the clock past it until this one sets a later one (UINT64_MAX: none). pmu-sim's
  // virtual clock stops another client's jump there, so that a workload that moves time in one
  // step is cut at every read; time that runs by itself ignores it.
  virtual void hold_at(std::uint64_t /*t_ns*/) {}
};

// CLOCK_MONOTONIC and nanosleep.
std::unique_ptr<Clock> real_clock();

}  // namespace pmukit
