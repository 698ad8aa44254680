// pmu-sim -- `run` (serve a snapshot's clock and step its registers) and `advance` (move virtual
// time forward as a client, e.g. as the command pmu-raw counts over).
#include "run.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <time.h>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/platform/embedded.h"
#include "pmukit/sim/clock.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/text.h"

namespace pmukit::tools {

namespace {

void on_signal(int) {
  g_interrupted.store(true);
}

// The longest an idle server sleeps without a request: a signal that lands between the check of
// g_interrupted and the wait is seen this late at most (the wait itself ends on a signal at once).
constexpr std::uint64_t kIdleWakeNs = 100'000'000;

// A scenario file, or a bundled scenario by name; the text and what names it in errors.
std::pair<std::string, std::string> scenario_text(const std::string& arg) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(arg, ec)) return {read_file(arg), arg};
  if (auto data = platform::find_embedded(fmt::format("sim/scenarios/{}.json", arg)))
    return {std::string(*data), fmt::format("platforms/sim/scenarios/{}.json", arg)};
  throw UsageError(fmt::format("--scenario '{}': no such file, and no bundled scenario of that name", arg));
}

// pmu-sim's default rates, the --rate rules and the scenario (whose name goes to `scenario`).
sim::Rates rates_of(const RunOptions& opts, const Machine& machine, const discovery::Inventory& inventory,
                    std::string& scenario) {
  sim::Rates rates = sim::Rates::defaults();
  for (const auto& r : opts.rates) rates.add_rule(r);
  if (opts.scenario.empty()) return rates;
  auto [text, what] = scenario_text(opts.scenario);
  rates.add_scenario(text, what);
  scenario = what;
  for (const auto& name : rates.scenario_units())  // a scenario of another machine would count nothing
    if (std::none_of(inventory.units.begin(), inventory.units.end(), [&](const auto& u) { return u.name == name; }))
      throw Error(fmt::format("{}: unit '{}' is not on {}", scenario, name, machine.describe()));
  return rates;
}

}  // namespace

std::uint64_t parse_span_ns(const std::string& text) {
  static constexpr std::pair<std::string_view, std::uint64_t> kUnits[] = {
      {"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}};
  std::string_view t = text, digits = t;
  std::uint64_t scale = 1'000'000;
  for (const auto& [suffix, ns] : kUnits)
    if (t.ends_with(suffix)) {
      digits = t.substr(0, t.size() - suffix.size()), scale = ns;
      break;
    }
  auto v = digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos ? std::nullopt
                                                                                              : parse_u64(digits);
  if (!v || *v > ~0ull / scale)
    throw UsageError(fmt::format("'{}' is not a time: a whole number of ms, or with ns, us, ms or s", text));
  return *v * scale;
}

// What the hardware would refuse (a reserved bit written), each once, as the simulator finds it.
static void report_faults(const sim::Simulator& simulator, std::size_t& shown) {
  for (; shown < simulator.faults().size(); ++shown) fmt::print(stderr, "pmu-sim: {}\n", simulator.faults()[shown]);
}

// Virtual time: the clock moves only when a client asks it to.
static int run_virtual(sim::Simulator& simulator, sim::ClockServer& server) {
  std::uint64_t seq = 0, request = 0, now = 0;
  std::size_t faults_shown = 0;
  while (!g_interrupted.load()) {
    const std::uint32_t bell = server.doorbell();  // before pending(): a request after it rings
    if (!server.pending(seq, request)) {
      server.release_dead_client();    // a client killed holding the page's flag
      server.wait(bell, kIdleWakeNs);  // blocks: an idle simulator takes no CPU
      continue;
    }
    // Another client's request stops at a counting process's hold (ClockPage::hold_ns).
    const std::uint64_t to = server.limit(request, now);
    std::uint64_t dt = to > now ? to - now : 0;
    simulator.step(dt);
    report_faults(simulator, faults_shown);
    now += dt;
    server.complete(seq, now);
  }
  return 0;
}

int run_simulator(Machine& machine, const RunOptions& opts) {
  auto found = discovery::discover(machine);
  std::string scenario;
  sim::Rates rates = rates_of(opts, machine, found.inventory, scenario);
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
  if (!scenario.empty()) fmt::print("pmu-sim: workload scenario {}\n", scenario);
  for (const auto& s : simulator.skipped()) fmt::print("pmu-sim: not simulated: {}\n", s);
  std::fflush(stdout);
  if (!opts.realtime) return run_virtual(simulator, server);
  std::uint64_t seq = 0, request = 0;
  std::size_t faults_shown = 0;
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
    report_faults(simulator, faults_shown);
    last = now;
    server.set_now(now);
    if (waiting) server.complete(seq, now);
    if (now >= next) next = now + period;
  }
  return 0;
}

int advance_clock(Machine& machine, std::uint64_t ns) {
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  auto time = sim::machine_clock(machine);
  if (!time.simulated()) throw Error(fmt::format("{}: no pmu-sim is serving this machine", machine.describe()));
  time.clock->sleep_until(time.clock->now_ns() + ns);
  return 0;
}

int print_clock(Machine& machine) {
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  auto time = sim::machine_clock(machine);
  if (!time.simulated()) throw Error(fmt::format("{}: no pmu-sim is serving this machine", machine.describe()));
  fmt::print("{}\n", time.clock->now_ns());
  return 0;
}

}  // namespace pmukit::tools
