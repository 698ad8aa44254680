// pmu-sim -- builds synthetic machines and (pmu-sim run) makes their PMU registers count.
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/bundled.h"
#include "common/tool.h"
#include "pmukit/access/machine.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "run.h"

using namespace pmukit;

namespace {

constexpr const char* kAbout =
    "pmu-sim: synthetic machines whose uncore PMU registers behave like hardware.\n\n"
    "Examples:\n"
    "  pmu-sim list                          the bundled machines\n"
    "  pmu-sim create spr-2s /tmp/spr        write a bundled machine's snapshot tree\n"
    "  pmu-sim create --spec my.json /tmp/m  write a machine described in JSON\n"
    "                                        (docs/snapshot-format.md)\n"
    "  pmu-sim run /tmp/spr --realtime &     make its counters count as time passes\n"
    "  pmu-sim wait /tmp/spr                 ... and return once it does\n"
    "  pmu-sim run /tmp/spr                  virtual time: it advances only when a client\n"
    "                                        (pmu-raw, pmu-sim advance) asks\n"
    "  pmu-sim run /tmp/g --scenario grace-local-write\n"
    "                                        count a guide's workload: its documented\n"
    "                                        counts over its span (platforms/sim/scenarios)\n"
    "  pmu-sim advance /tmp/spr 1000         move virtual time forward by 1000 ms\n"
    "  pmu-sim advance /tmp/g 127496157ns    ... or by a time with a unit\n"
    "  pmu-sim now /tmp/spr                  the simulator's clock, in nanoseconds";

// The subcommands and what each was given.
struct Commands {
  CLI::App* list = nullptr;
  CLI::App* create = nullptr;
  std::string spec_file;
  std::vector<std::string> create_args;
  CLI::App* run = nullptr;
  std::string run_dir;
  tools::RunOptions run_opts;
  CLI::App* advance = nullptr;
  std::string advance_dir;
  std::string advance_time;
  CLI::App* now = nullptr;
  std::string now_dir;
  CLI::App* wait = nullptr;
  std::string wait_dir;
  double wait_timeout_s = 10;
};

void add_create(CLI::App& app, Commands& c) {
  c.create = app.add_subcommand("create", "Write a machine's snapshot tree into an empty directory");
  c.create->add_option("--spec", c.spec_file, "Machine description in JSON instead of a bundled name")
      ->check(CLI::ExistingFile);
  c.create
      ->add_option("args", c.create_args,
                   "[MACHINE] DIR: bundled machine name (see 'pmu-sim list') and the directory "
                   "to write (created; must be empty)")
      ->required();
}

void add_run(CLI::App& app, Commands& c) {
  c.run = app.add_subcommand("run", "Simulate a snapshot's PMU registers until interrupted");
  c.run->add_option("dir", c.run_dir, "The snapshot directory")->required()->check(CLI::ExistingDirectory);
  c.run->add_flag("--realtime", c.run_opts.realtime,
                  "Step with the wall clock (default: virtual time, advanced by clients)");
  c.run->add_option("--step-ms", c.run_opts.step_ms, "Real-time step period in ms")
      ->capture_default_str()
      ->check(tools::whole_number_in(1, 60000));
  c.run
      ->add_option("--rate", c.run_opts.rates,
                   "Event rate in counts/s: KIND:CODE=RATE, KIND=RATE, cycles=HZ or default=RATE "
                   "(defaults in platforms/sim/rates.json)")
      ->type_name("RULE");
  c.run
      ->add_option("--scenario", c.run_opts.scenario,
                   "A workload's documented counts and latencies (JSON), or a bundled scenario's name "
                   "(platforms/sim/scenarios/)")
      ->type_name("FILE");
}

void add_advance(CLI::App& app, Commands& c) {
  c.advance = app.add_subcommand("advance", "Advance a running simulator's virtual time");
  c.advance->add_option("dir", c.advance_dir, "The snapshot directory")->required()->check(CLI::ExistingDirectory);
  c.advance
      ->add_option("time", c.advance_time,
                   "Virtual time: milliseconds, or a whole number with a unit (127496157ns, 20us, 168ms, 2s)")
      ->required();
}

void add_now(CLI::App& app, Commands& c) {
  c.now = app.add_subcommand("now", "Print a running simulator's clock in nanoseconds (virtual time: how far "
                                    "clients have moved it)");
  c.now->add_option("dir", c.now_dir, "The snapshot directory")->required()->check(CLI::ExistingDirectory);
}

void add_wait(CLI::App& app, Commands& c) {
  c.wait = app.add_subcommand("wait", "Return once a pmu-sim run serves the directory (after 'pmu-sim run DIR &')");
  c.wait->add_option("dir", c.wait_dir, "The snapshot directory")->required()->check(CLI::ExistingDirectory);
  c.wait->add_option("--timeout", c.wait_timeout_s, "Seconds to wait at most before failing")
      ->capture_default_str()
      ->check(tools::seconds_in(3600));
}

// pmu-sim writes registers (run), a clock page (run, advance) or a tree (create): never on the
// live machine, however its root is named (/, a link to it, --snapshot /).
void refuse_live(const Machine& machine, const std::string& dir, std::string_view what) {
  if (machine.is_live())
    throw Error(fmt::format("{}: is this machine's root (the live machine): pmu-sim {} works on snapshots only, never "
                            "on this machine's registers ('pmu-sim create MACHINE DIR' writes one)",
                            dir, what));
}

int create_machine(const Commands& c) {
  const auto& args = c.create_args;
  if (args.size() != (c.spec_file.empty() ? 2u : 1u))
    throw UsageError(c.spec_file.empty() ? "create: expected MACHINE DIR" : "create --spec FILE: expected DIR");
  const std::string dir = args.back();
  const std::string name = c.spec_file.empty() ? args.front() : "";
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) refuse_live(Machine(MachineOptions{dir}), dir, "create");
  if (!c.spec_file.empty()) {
    nlohmann::json spec;
    try {
      spec = nlohmann::json::parse(read_file(c.spec_file));
    } catch (const nlohmann::json::exception& e) {
      std::string_view m = e.what();  // without nlohmann's "[json.exception.parse_error.101] " tag
      if (m.starts_with('[')) m.remove_prefix(std::min(m.size(), m.find("] ") + 2));
      throw Error(fmt::format("{}: not valid JSON: {}", c.spec_file, m));
    }
    families::build_from_spec(spec, dir, c.spec_file);
  } else {
    families::build_bundled(name, dir);
  }
  fmt::print("{}: machine '{}' written\n", dir, name.empty() ? c.spec_file : name);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kAbout, "pmu-sim"};
  app.require_subcommand(1);
  Commands c;
  c.list = app.add_subcommand("list", "List the bundled synthetic machines");
  add_create(app, c);
  add_run(app, c);
  add_advance(app, c);
  add_now(app, c);
  add_wait(app, c);
  app.set_version_flag("-V,--version", "pmu-sim (pmukit) 0.1.0");
  return tools::run_tool("pmu-sim", app, argc, argv, [&] {
    if (c.list->parsed()) {
      tools::print_bundled_machines();
      return 0;
    }
    if (c.run->parsed()) {
      Machine machine(MachineOptions{c.run_dir});
      refuse_live(machine, c.run_dir, "run");
      return tools::run_simulator(machine, c.run_opts);
    }
    if (c.advance->parsed()) {
      Machine machine(MachineOptions{c.advance_dir});
      refuse_live(machine, c.advance_dir, "advance");
      return tools::advance_clock(machine, tools::parse_span_ns(c.advance_time));
    }
    if (c.wait->parsed()) {
      Machine machine(MachineOptions{c.wait_dir});
      return tools::wait_for_simulator(machine, static_cast<std::uint64_t>(c.wait_timeout_s * 1e9));
    }
    if (c.now->parsed()) {
      Machine machine(MachineOptions{c.now_dir});
      return tools::print_clock(machine);
    }
    return create_machine(c);
  });
}
