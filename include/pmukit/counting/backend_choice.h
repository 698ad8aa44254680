// pmukit tools -- which backend counts each event (--backend direct|perf|auto), and why.
//
// auto counts an event's units directly when the preflight finds every register they own can be
// mapped and written and no other agent is using them, and their events fit; otherwise through the
// kernel's perf PMU of the same name. Each decision is reported per PMU, with the reason.
#pragma once

#include "common/backend.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/sim/clock.h"

namespace pmukit::tools {

// How long each set of a multiplexed unit's events stays on its counters: perf's default for every
// PMU without a multiplexing interval of its own (the uncore and Arm PMU drivers set none), the
// perf_event_mux_interval_ms file's default PERF_CPU_HRTIMER = 1000 / HZ ms (Linux
// kernel/events/core.c), with Debian's CONFIG_HZ=250. (Intel uncore's hrtimer,
// UNCORE_PMU_HRTIMER_INTERVAL = 60 s, only reads counters before they overflow; it rotates nothing.)
constexpr std::uint64_t kDefaultMuxIntervalMs = 4;

struct BackendRequest {
  std::string mode = "auto";  // direct, perf or auto
  bool force = false;
  bool per_socket = false;
  std::uint64_t interval_ms = 0;                          // -I; 0 without
  std::uint64_t mux_interval_ms = kDefaultMuxIntervalMs;  // --mux-interval
};

// perf stat's shortest -I: below it a perf read (a system call per group and CPU, an IPI for each
// remote CPU) costs too much, so shorter intervals are a direct-backend ability.
constexpr std::uint64_t kPerfMinIntervalMs = 10;

// The backend for every spec except the bare names `skip` accepts (duration_time), and one note
// per decision. Throws UsageError when an event has no way to be counted, naming each reason.
std::unique_ptr<Backend> make_backend(Machine& machine, const std::vector<syntax::EventSpec>& specs,
                                      const discovery::DiscoveryResult& found, const BackendRequest& request,
                                      const sim::MachineClock& time, bool (*skip)(const syntax::EventSpec&));

}  // namespace pmukit::tools
