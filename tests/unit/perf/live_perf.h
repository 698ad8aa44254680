// pmukit tests -- helpers for tests that count with the live kernel's perf PMUs.
#pragma once

#include <gtest/gtest.h>
#include <time.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>

#include "pmukit/access/machine.h"
#include "pmukit/perf/event_set.h"
#include "pmukit/perf/syscall.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::test {

// Why `attr` cannot be opened on (pid, cpu) here, or nullopt when it can.
inline std::optional<std::string> cannot_open(perf_event_attr attr, int pid, int cpu) {
  attr.size = sizeof attr;
  attr.disabled = 1;
  int fd = perf::sys_perf_event_open(attr, pid, cpu, -1);
  if (fd >= 0) {
    perf::EventFd close_it(fd);
    return std::nullopt;
  }
  return "perf_event_open is not allowed here: " + errno_text(-fd);
}

// Why perf_event_open cannot be used at all (seccomp, paranoid 3 without privilege), or nullopt:
// user-only task-clock on this thread is what the least privileged perf setup allows.
inline std::optional<std::string> perf_unavailable() {
  perf_event_attr attr{};
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.exclude_kernel = attr.exclude_hv = 1;
  return cannot_open(attr, 0, -1);
}

// Why the msr PMU cannot be counted system-wide on CPU 0 (no msr PMU; not root and paranoid > 0),
// or nullopt.
inline std::optional<std::string> msr_system_wide_unavailable() {
  auto type = try_read_int(Machine::live().param("events.path") / "msr" / "type");
  if (!type) return "this machine has no msr PMU";
  perf_event_attr attr{};
  attr.type = static_cast<std::uint32_t>(*type);
  return cannot_open(attr, -1, 0);
}

// Skips the test when system-wide msr counting is impossible here.
#define PMUKIT_REQUIRE_PERF_AND_MSR()                                                                                  \
  do {                                                                                                                 \
    if (auto why = ::pmukit::test::msr_system_wide_unavailable()) GTEST_SKIP() << *why;                                \
  } while (0)

// The counters for an event list, bound on the live machine.
inline std::vector<perf::Counter> live_counters(std::string_view text) {
  Machine live = Machine::live();
  std::vector<perf::Counter> out;
  for (auto& b : perf::bind_events(live, syntax::parse_event_list(text))) out.push_back(b.counter);
  return out;
}

// Burns `ns` of this thread's CPU time: a fixed amount of work, not a wait. The thread CPU clock
// is the scheduler's runtime accounting, not perf's task-clock (local_clock); they agree only to
// ~0.1% here, so tests compare task-clock against kSpinCoverage of the spin, not all of it.
constexpr double kSpinCoverage = 0.9;
inline void spin_cpu_ns(long ns) {
  auto now = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1'000'000'000L + ts.tv_nsec;
  };
  long end = now() + ns;
  volatile unsigned sink = 0;
  while (now() < end)
    for (int i = 0; i < 1000; ++i) sink = sink + static_cast<unsigned>(i);
}

// How many file descriptors this process has open.
inline std::size_t open_fd_count() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

}  // namespace pmukit::test
