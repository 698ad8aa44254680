// The kernel's own vendor event files as an oracle: every Sapphire Rapids and Granite Rapids uncore
// event of tools/perf/pmu-events (tests/data/events/linux-*-uncore.tsv, provenance in their
// headers), on the bundled machine the simulator runs, programmed by pmukit from the perf terms
// jevents.py gives it, must leave in its counter control exactly the word the kernel writes: perf
// packs the terms into the kernel type's format/ bits (support/kernel_uncore_formats.h), the kernel
// cuts that config to its event mask (uncore_pmu_event_init: hwc->config = config & (event_mask |
// event_mask_ext << 32)) and writes it unchanged (spr_uncore_*_enable_event). Then the simulator
// counts them all, with no write the hardware would refuse. Events whose PMU the kernel does not
// register on that platform (SPR UBOX, M2HBM and MCHBM; GNR MDF and CHACMS) cannot be used through
// perf either, and are counted apart, as are free-running counters (no control to program) and PMUs
// the bundled machine lacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "pmukit/events/unit_events.h"
#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/session.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/sim/simulator.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "support/bundled_rig.h"
#include "support/kernel_uncore_formats.h"

using namespace pmukit;
namespace kernel = test::kernel;

namespace {

struct VendorEvent {
  std::string file, name, pmu, terms;
};

std::vector<VendorEvent> read_events(const std::string& file) {
  std::ifstream in(std::string(PMUKIT_SOURCE_DIR) + "/tests/data/events/" + file);
  std::vector<VendorEvent> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    VendorEvent e;
    std::getline(f, e.file, '\t'), std::getline(f, e.name, '\t'), std::getline(f, e.pmu, '\t');
    std::getline(f, e.terms);
    out.push_back(e);
  }
  return out;
}

// What the kernel writes to the counter control for these perf terms on a type of group `g`; none
// when perf refuses them (a term the type has no format for, a value too big for its format).
std::optional<std::uint64_t> kernel_control(const kernel::Group& g, const std::string& terms) {
  std::uint64_t config = 0;
  std::istringstream in(terms);
  std::string term;
  while (std::getline(in, term, ',')) {
    const auto eq = term.find('=');
    const auto f = g.formats.find(term.substr(0, eq));
    if (f == g.formats.end()) return std::nullopt;
    auto packed = kernel::perf_pack(f->second, std::stoull(term.substr(eq + 1), nullptr, 0));
    if (!packed || packed->first != 0) return std::nullopt;
    config |= packed->second;
  }
  return config & g.keep();
}

struct Placed {
  const discovery::PmuUnit* unit;
  std::vector<syntax::EncodedEvent> events;
  std::vector<std::uint64_t> want;  // the kernel's control words for them
  std::vector<std::string> names;
};

struct Tally {
  std::size_t events = 0, compared = 0, equal = 0, counted = 0, differing_units = 0;
  std::map<std::string, std::size_t> skipped;  // why -> how many
  std::string differences;
  std::string summary(const std::string& family) const {
    std::string s = fmt::format("{}: {} vendor events; {} programmed, {} control words equal to the kernel's, {} "
                                "counted in the simulator",
                                family, events, compared, equal, counted);
    for (const auto& [why, n] : skipped) s += fmt::format("; {} {}", n, why);
    return s;
  }
};

// The units of the machine a kernel PMU name selects (uncore_cha -> uncore_cha_0, uncore_cha_1...).
std::vector<const discovery::PmuUnit*> units_of(const discovery::Inventory& inv, const std::string& pmu) {
  std::vector<const discovery::PmuUnit*> out;
  for (const auto& u : inv.units)
    if (u.as<discovery::IntelUnit>() &&
        (u.name == pmu || (u.name.starts_with(pmu + "_") &&
                           u.name.find_first_not_of("0123456789", pmu.size() + 1) == std::string::npos)))
      out.push_back(&u);
  return out;
}

// One session of many units: programmed (the controls read back and compared as multisets per
// unit: the driver picks the counters), then counted for a simulated second.
void run_round(test::BundledRig& m, sim::Simulator& simulator, std::vector<Placed>& round, Tally& t) {
  pmu::SessionOptions o;
  o.settle = &simulator;
  std::vector<pmu::UnitEvents> work;
  for (const auto& p : round) work.push_back({p.unit, p.events});
  pmu::DirectSession s(*m.machine, work, platform::Database::builtin(), o);
  pmu::RegisterIo io(*m.machine);
  for (const auto& p : round) {
    const auto layout = pmu::make_layout(*p.unit, platform::Database::builtin());
    for (const auto& b : layout.blocks) io.map_block(b.base, b.size);
    std::vector<std::uint64_t> got;
    for (unsigned i : layout.indices(pmu::IntelRole::CounterControl))
      if (auto v = io.read(layout.at(pmu::IntelRole::CounterControl, i))) got.push_back(v);
    auto want = p.want;
    std::sort(got.begin(), got.end()), std::sort(want.begin(), want.end());
    t.compared += p.events.size();
    if (got == want) {
      t.equal += p.events.size();
    } else if (++t.differing_units > 20) {
      continue;  // enough to see what is wrong
    } else {
      std::string g, w;
      for (auto v : got) g += fmt::format(" {:#x}", v);
      for (auto v : want) w += fmt::format(" {:#x}", v);
      t.differences += fmt::format("{} ({}): wrote{}, the kernel writes{}\n", p.unit->name, p.names.front(), g, w);
    }
  }
  s.start();
  simulator.step(1'000'000'000);
  for (const auto& unit : s.sample())
    for (const auto& c : unit) t.counted += c.delta > 0 ? 1 : 0;
  s.stop();
  s.restore();
}

Tally check_family(const std::string& machine, const std::string& data, const std::map<int, kernel::Type>& types) {
  test::BundledRig m(machine);
  sim::Simulator simulator(*m.machine, m.found.inventory, sim::Rates::defaults());
  pmu::Preflight pf(*m.machine, platform::Database::builtin());
  std::map<std::string, const kernel::Group*> kernel_pmus;
  for (const auto& [type, k] : types) kernel_pmus["uncore_" + k.name] = k.group;
  Tally t;
  // Per unit, the events placed on it so far, in rounds: a unit takes what its counters take.
  std::vector<std::map<const discovery::PmuUnit*, Placed>> rounds;
  for (const auto& e : read_events(data)) {
    ++t.events;
    if (e.pmu.ends_with("_free_running")) {  // the kernel's extra types: counters without a control
      ++t.skipped[fmt::format("on free-running counters, which have no control register ({})", e.pmu)];
      continue;
    }
    auto k = kernel_pmus.find(e.pmu);
    if (k == kernel_pmus.end()) {
      ++t.skipped[fmt::format("with no kernel PMU of their name ({})", e.pmu)];
      continue;
    }
    auto units = units_of(m.found.inventory, e.pmu);
    if (units.empty()) {
      ++t.skipped[fmt::format("on {}, which the bundled machine has no unit of", e.pmu)];
      continue;
    }
    auto want = kernel_control(*k->second, e.terms);
    syntax::EncodedEvent enc;
    try {
      enc = events::bind_events(syntax::parse_event_list(units[0]->name + "/" + e.terms + "/"), m.found.inventory,
                                platform::Database::builtin())
                .at(0)
                .encoded;
    } catch (const UsageError& err) {
      if (want)
        t.differences += fmt::format("{} ({}): pmukit refuses ({}), perf takes it\n", e.name, e.terms, err.what());
      else
        ++t.skipped["refused by perf and by pmukit (a value too big for the kernel's format)"];
      continue;
    }
    if (!want) {
      t.differences += fmt::format("{} ({}): perf refuses it, pmukit takes it\n", e.name, e.terms);
      continue;
    }
    bool placed = false;
    for (std::size_t r = 0; !placed; ++r) {
      if (r == rounds.size()) rounds.emplace_back();
      for (const auto* u : units) {
        auto& p = rounds[r][u];
        auto trial = p.events;
        trial.push_back(enc);
        if (!pmu::ok(pf.fit(*u, trial))) continue;
        p.unit = u, p.events = trial, p.want.push_back(*want), p.names.push_back(e.name);
        placed = true;
        break;
      }
      if (r > 64) break;
    }
    if (!placed) t.differences += fmt::format("{} ({}): no unit takes it\n", e.name, e.terms);
  }
  for (auto& r : rounds) {
    std::vector<Placed> round;
    for (auto& [u, p] : r)
      if (!p.events.empty()) round.push_back(std::move(p));
    if (!round.empty()) run_round(m, simulator, round, t);
  }
  EXPECT_EQ(simulator.faults(), std::vector<std::string>{});
  return t;
}

// Every event of the kernel's files was compared, equal and counted by the model; at least `min`.
void expect_kernel_equal(const Tally& t, const char* family, unsigned min) {
  std::cout << t.summary(family) << "\n";
  EXPECT_EQ(t.differences, "");
  EXPECT_EQ(t.equal, t.compared);
  EXPECT_EQ(t.counted, t.compared);
  EXPECT_GT(t.compared, min);
}

}  // namespace

TEST(KernelEventFiles, SapphireRapidsControlWordsAreTheKernels) {
  // CHA, IIO, IRP, M2PCIe, iMC, M2M, UPI, M3UPI, MDF, PCU at least
  expect_kernel_equal(check_family("spr-2s", "linux-sapphirerapids-uncore.tsv", kernel::spr_types()), "SPR", 1500);
}

TEST(KernelEventFiles, GraniteRapidsControlWordsAreTheKernels) {
  expect_kernel_equal(check_family("gnr-2s", "linux-graniterapids-uncore.tsv", kernel::gnr_types()), "GNR", 700);
}
