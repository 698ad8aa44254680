// pmukit -- the clock server's loop, and scenarios by name.
#include "pmukit/sim/serve.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/discovery/inventory.h"
#include "pmukit/platform/embedded.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

namespace pmukit::sim {

namespace {

// The longest an idle server sleeps without a request: a signal that lands between the check of
// g_interrupted and the wait is seen this late at most (the wait itself ends on a signal at once).
constexpr std::uint64_t kIdleWakeNs = 100'000'000;

// What the hardware would refuse (a reserved bit written), each once, as the simulator finds it.
void report_faults(const Simulator& simulator, const ServeOptions& o, std::size_t& shown) {
  for (; shown < simulator.faults().size(); ++shown)
    if (o.on_fault) o.on_fault(simulator.faults()[shown]);
}

// Virtual time: the clock moves only when a client asks it to.
void serve_virtual(Simulator& simulator, ClockServer& server, const ServeOptions& o) {
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
    report_faults(simulator, o, faults_shown);
    now += dt;
    server.complete(seq, now);
  }
}

void serve_realtime(Simulator& simulator, ClockServer& server, const ServeOptions& o) {
  std::uint64_t seq = 0, request = 0;
  std::size_t faults_shown = 0;
  const std::uint64_t period = o.period_ns;
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
    report_faults(simulator, o, faults_shown);
    last = now;
    server.set_now(now);
    if (waiting) server.complete(seq, now);
    if (now >= next) next = now + period;
  }
}

// A scenario file, or a bundled scenario by name; the text and what names it in errors.
std::pair<std::string, std::string> scenario_text(const std::string& arg) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(arg, ec)) return {read_file(arg), arg};
  if (auto data = platform::find_embedded(fmt::format("sim/scenarios/{}.json", arg)))
    return {std::string(*data), fmt::format("platforms/sim/scenarios/{}.json", arg)};
  throw UsageError(fmt::format("--scenario '{}': no such file, and no bundled scenario of that name", arg));
}

}  // namespace

void serve(Simulator& simulator, ClockServer& server, const ServeOptions& options) {
  if (server.mode() == SimMode::RealTime)
    serve_realtime(simulator, server, options);
  else
    serve_virtual(simulator, server, options);
}

std::string add_named_scenario(Rates& rates, const std::string& name, const Machine& machine,
                               const discovery::Inventory& inventory) {
  auto [text, what] = scenario_text(name);
  rates.add_scenario(text, what);
  for (const auto& unit : rates.scenario_units())
    if (std::none_of(inventory.units.begin(), inventory.units.end(), [&](const auto& u) { return u.name == unit; }))
      throw Error(fmt::format("{}: unit '{}' is not on {}", what, unit, machine.describe()));
  return what;
}

}  // namespace pmukit::sim
