// pmu-sim -- `run` (serve a snapshot's clock and step its registers) and `advance` (move virtual
// time forward as a client, e.g. as the command pmu-raw counts over).
#include "run.h"

#include <csignal>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/families/registry.h"
#include "pmukit/sim/clock.h"
#include "pmukit/sim/serve.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/signals.h"
#include "pmukit/util/text.h"

namespace pmukit::tools {

namespace {

// pmu-sim's default rates, the --rate rules and the scenario (whose name goes to `scenario`).
sim::Rates rates_of(const RunOptions& opts, const Machine& machine, const discovery::Inventory& inventory,
                    std::string& scenario) {
  sim::Rates rates = sim::Rates::defaults();
  for (const auto& r : opts.rates) rates.add_rule(r);
  if (!opts.scenario.empty()) scenario = sim::add_named_scenario(rates, opts.scenario, machine, inventory);
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

int run_simulator(Machine& machine, const RunOptions& opts) {
  auto found = families::discover(machine);
  std::string scenario;
  sim::Rates rates = rates_of(opts, machine, found.inventory, scenario);
  sim::Simulator simulator(machine, found.inventory, std::move(rates));
  if (simulator.units() == 0) throw Error(fmt::format("{}: no PMU unit to simulate", machine.describe()));
  interrupt_on({SIGINT, SIGTERM});
  machine.check_no_links(machine.param("sim.path") / "clock");  // the page is created and written by name
  sim::ClockServer server(machine, opts.realtime ? sim::SimMode::RealTime : sim::SimMode::Virtual);
  fmt::print("pmu-sim: simulating {} PMU units of {} in {} time; clock page {}\n", simulator.units(),
             machine.describe(), opts.realtime ? "real" : "virtual", server.path().string());
  if (!scenario.empty()) fmt::print("pmu-sim: workload scenario {}\n", scenario);
  for (const auto& s : simulator.skipped()) fmt::print("pmu-sim: not simulated: {}\n", s);
  std::fflush(stdout);
  sim::ServeOptions serve;
  serve.period_ns = opts.step_ms * 1'000'000ull;
  serve.on_fault = [](const std::string& f) { fmt::print(stderr, "pmu-sim: {}\n", f); };
  sim::serve(simulator, server, serve);
  return 0;
}

int advance_clock(Machine& machine, std::uint64_t ns) {
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  auto time = sim::machine_clock(machine);
  if (!time.simulated()) throw Error(fmt::format("{}: no pmu-sim is serving this machine", machine.describe()));
  time.clock->sleep_until(time.clock->now_ns() + ns);
  return 0;
}

int wait_for_simulator(Machine& machine, std::uint64_t timeout_ns) {
  constexpr std::uint64_t kLookNs = 5'000'000;  // how often the page is looked for again
  const std::uint64_t end = monotonic_ns() + timeout_ns;
  std::string why = "no clock page";
  for (;;) {
    try {
      machine.check_no_links(machine.param("sim.path") / "clock");
      if (sim::machine_clock(machine).simulated()) return 0;
    } catch (const Error& e) {
      why = e.what();  // e.g. the page of a pmu-sim that is gone, until a new one replaces it
    }
    if (monotonic_ns() >= end)
      throw Error(fmt::format("{}: no pmu-sim serves it after {} s ({})", machine.describe(),
                              static_cast<double>(timeout_ns) / 1e9, why));
    nap_ns(kLookNs);
  }
}

int print_clock(Machine& machine) {
  machine.check_no_links(machine.param("sim.path") / "clock");  // mapped read-write by name
  auto time = sim::machine_clock(machine);
  if (!time.simulated()) throw Error(fmt::format("{}: no pmu-sim is serving this machine", machine.describe()));
  fmt::print("{}\n", time.clock->now_ns());
  return 0;
}

}  // namespace pmukit::tools
