// pmukit -- which backend counts each event (direct, perf or auto, per PMU), and why.
//
// auto counts an event's units directly when the preflight finds every register they own can be
// mapped and written and no other agent is using them, and their events fit; otherwise through the
// kernel's perf PMU of the same name. Each decision is reported per PMU, with the reason.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/counting/backend.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/sim/clock.h"

namespace pmukit::counting {

// How a PMU's events are counted: programming its registers (Direct), through the kernel's
// perf_event_open (Perf), or whichever of the two can (Auto: direct where the preflight finds the
// registers reachable, free and the events fitting, perf otherwise).
enum class BackendMode { Direct, Perf, Auto };

// "direct", "perf", "auto" -> the mode; nullopt for any other text.
std::optional<BackendMode> backend_mode(std::string_view name);
std::string_view backend_mode_name(BackendMode mode);

// How long each set of a multiplexed unit's events stays on its counters: perf's default for every
// PMU without a multiplexing interval of its own (the uncore and Arm PMU drivers set none), the
// perf_event_mux_interval_ms file's default PERF_CPU_HRTIMER = 1000 / HZ ms (Linux
// kernel/events/core.c), with Debian's CONFIG_HZ=250. (Intel uncore's hrtimer,
// UNCORE_PMU_HRTIMER_INTERVAL = 60 s, only reads counters before they overflow; it rotates nothing.)
constexpr std::uint64_t kDefaultMuxIntervalMs = 4;

struct BackendRequest {
  BackendMode mode = BackendMode::Auto;
  // A mode of its own for the events of a PMU, by the PMU name as the events write it
  // ("uncore_imc", "nvidia_scf_pmu_0"); every other PMU takes `mode`.
  std::map<std::string, BackendMode> per_pmu;
  bool force = false;             // take busy units for direct programming (their registers are restored)
  bool per_socket = false;        // the perf backend opens each group once per socket, to split its counts
  bool per_cpu = false;           // the perf backend opens each group once per CPU, a row each (perf stat -A)
  std::vector<int> cpus;          // -C: the perf backend opens events on these CPUs only (empty: every CPU)
  std::uint64_t interval_ms = 0;  // the interval the counts are read at; 0 without
  std::uint64_t mux_interval_ms = kDefaultMuxIntervalMs;  // the multiplexing interval

  BackendMode mode_of(const std::string& pmu) const {
    auto it = per_pmu.find(pmu);
    return it == per_pmu.end() ? mode : it->second;
  }
};

// perf stat's shortest -I: below it a perf read (a system call per group and CPU, an IPI for each
// remote CPU) costs too much, so shorter intervals are a direct-backend ability.
constexpr std::uint64_t kPerfMinIntervalMs = 10;

// The backend for every spec except the bare names `skip` accepts (duration_time), and one note
// per decision. Each event is bound to its units and each unit's events planned (multiplexing)
// once, and the direct backend counts with those plans. A journal a killed run left is recovered
// first, each unit it restored told to `note`. Throws UsageError when an event has no way to be
// counted, naming each reason.
std::unique_ptr<Backend> make_backend(Machine& machine, const std::vector<syntax::EventSpec>& specs,
                                      const discovery::DiscoveryResult& found, const BackendRequest& request,
                                      const sim::MachineClock& time, bool (*skip)(const syntax::EventSpec&),
                                      const std::function<void(const std::string&)>& note);

}  // namespace pmukit::counting
