// pmu-sim -- `run` (serve a snapshot's clock and step its registers) and `advance` (move virtual
// time forward as a client, e.g. as the command pmu-raw counts over).
#include "run.h"

#include <algorithm>
#include <csignal>
#include <time.h>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/sim/clock.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/util/error.h"

namespace pmukit::tools {

namespace {

void on_signal(int) {
  g_interrupted.store(true);
}

// The longest an idle server sleeps without a request: a signal that lands between the check of
// g_interrupted and the wait is seen this late at most (the wait itself ends on a signal at once).
constexpr std::uint64_t kIdleWakeNs = 100'000'000;

}  // namespace

int run_simulator(Machine& machine, const RunOptions& opts) {
  auto found = discovery::discover(machine);
  sim::Rates rates = sim::Rates::defaults();
  for (const auto& r : opts.rates) rates.add_rule(r);
  sim::Simulator simulator(machine, found.inventory, std::move(rates));
  if (simulator.units() == 0) throw Error(fmt::format("{}: no PMU unit to simulate", machine.describe()));
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  machine.check_no_links(machine.param("sim.path") / "clock");  // the page is created and written by name
  sim::ClockServer server(machine, opts.realtime ? sim::SimMode::RealTime : sim::SimMode::Virtual);
  fmt::print("pmu-sim: simulating {} PMU units of {} in {} time; clock page {}\n", simulator.units(),
             machine.describe(), opts.realtime ? "real" : "virtual", server.path().string());
  for (const auto& s : simulator.skipped()) fmt::print("pmu-sim: not simulated: {}\n", s);
  std::fflush(stdout);
  std::uint64_t seq = 0, request = 0;
  if (!opts.realtime) {
    std::uint64_t now = 0;
    while (!g_interrupted.load()) {
      const std::uint32_t bell = server.doorbell();  // before pending(): a request after it rings
      if (!server.pending(seq, request)) {
        server.release_dead_client();    // a client killed holding the page's flag
        server.wait(bell, kIdleWakeNs);  // blocks: an idle simulator takes no CPU
        continue;
      }
      std::uint64_t dt = request > now ? request - now : 0;
      simulator.step(dt);
      now += dt;
      server.complete(seq, now);
    }
    return 0;
  }
  // Steps every period; a client's settle request (it wrote control registers and waits for them to take
  // effect) wakes it at once instead of at the next period, so programming hundreds of boxes does not
  // wait hundreds of periods.
  const std::uint64_t period = opts.step_ms * 1'000'000ull;
  std::uint64_t last = monotonic_ns(), next = last + period;
  while (!g_interrupted.load()) {
    const std::uint32_t bell = server.doorbell();
    bool waiting = server.pending(seq, request);
    std::uint64_t now = monotonic_ns();
    if (!waiting && now < next) {
      server.release_dead_client();
      server.wait(bell, std::min(kIdleWakeNs, next - now));
      continue;
    }
    simulator.step(now - last);
    last = now;
    server.set_now(now);
    if (waiting) server.complete(seq, now);
    if (now >= next) next = now + period;
  }
  return 0;
}

int advance_clock(Machine& machine, std::uint64_t ms) {
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  auto time = sim::machine_clock(machine);
  if (!time.simulated()) throw Error(fmt::format("{}: no pmu-sim is serving this machine", machine.describe()));
  time.clock->sleep_until(time.clock->now_ns() + ms * 1'000'000ull);
  return 0;
}

}  // namespace pmukit::tools
