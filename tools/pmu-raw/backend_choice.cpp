// pmu-raw -- backend choice per event, and the composite that runs direct and perf together.
#include "backend_choice.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "direct_backend.h"
#include "perf_backend.h"
#include "pmukit/events/unit_events.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/util/error.h"

namespace pmukit::tools {

namespace {

class Composite : public Backend {
 public:
  void add(std::unique_ptr<Backend> b) { parts_.push_back(std::move(b)); }
  void note(std::string n) { notes_.push_back(std::move(n)); }
  void start() override {
    for (auto& p : parts_) p->start();
  }
  void stop() override {
    for (auto& p : parts_) p->stop();
  }
  std::vector<Row> read(std::uint64_t window_ns) override {
    std::vector<Row> rows;
    for (auto& p : parts_) {
      auto r = p->read(window_ns);
      rows.insert(rows.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
    }
    return rows;
  }
  std::uint64_t max_read_period_ns() const override {
    std::uint64_t period = UINT64_MAX;
    for (const auto& p : parts_) period = std::min(period, p->max_read_period_ns());
    return period;
  }
  std::vector<std::string> notes() const override {
    auto all = notes_;
    for (const auto& p : parts_)
      for (auto& n : p->notes()) all.push_back(std::move(n));
    return all;
  }
  std::vector<std::string> finish() override {
    std::vector<std::string> errors;
    for (auto& p : parts_)
      for (auto& e : p->finish()) errors.push_back(std::move(e));
    return errors;
  }

 private:
  std::vector<std::unique_ptr<Backend>> parts_;
  std::vector<std::string> notes_;
};

// Why the units an event names cannot all be counted directly, or "" when they can.
std::string direct_problem(Machine& machine, const std::vector<const discovery::PmuUnit*>& units) {
  if (units.empty()) return "pmukit discovered no such unit";
  for (const auto* u : units) {
    try {
      auto driver = pmu::make_driver(*u, platform::Database::builtin());
      if (auto p = pmu::direct_access_problem(machine, *driver)) return fmt::format("{}: {}", u->name, *p);
    } catch (const Error& e) {
      return e.what();
    }
  }
  return "";
}

// Why the direct drivers refuse these events (all naming one PMU), or "" when they take them: the
// checks DirectSession makes before writing anything -- encodings, filters, counters per unit --
// made early so that auto mode can still send the PMU to the kernel's perf instead.
std::string direct_refusal(const std::vector<events::EventSpec>& specs, const discovery::Inventory& inventory) {
  try {
    const auto& db = platform::Database::builtin();
    auto bound = events::bind_events(specs, inventory, db);
    std::map<const discovery::PmuUnit*, std::vector<events::EncodedEvent>> per_unit;
    for (auto& b : bound) per_unit[b.unit].push_back(std::move(b.encoded));
    for (const auto& [unit, encoded] : per_unit) pmu::make_driver(*unit, db)->check(encoded);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

struct Choice {
  std::vector<const discovery::PmuUnit*> units;
  bool kernel = false;
  bool use_direct = false;
  std::string why_not_direct;
};

}  // namespace

std::unique_ptr<Backend> make_backend(Machine& machine, const std::vector<events::EventSpec>& specs,
                                      const discovery::DiscoveryResult& found, const BackendRequest& req,
                                      sim::Clock& clock, bool (*skip)(const events::EventSpec&)) {
  std::vector<events::EventSpec> direct, perf_specs;
  std::vector<std::size_t> direct_index, perf_index;
  auto composite = std::make_unique<Composite>();
  std::map<std::string, std::string> decided;  // PMU as written -> decision already noted
  std::vector<Choice> choices(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    if (skip && skip(s)) continue;
    auto& [units, kernel, use_direct, why_not_direct] = choices[i];
    units = s.pmu.empty() ? std::vector<const discovery::PmuUnit*>{} : found.inventory.find(s.pmu);
    kernel = !(s.pmu.empty() ? std::vector<perf::SysfsPmu>{} : perf::find_pmus(machine, s.pmu)).empty() ||
             s.pmu.empty();  // bare names are perf software events or aliases
    if (req.mode == "direct") {
      if (units.empty())
        throw UsageError(fmt::format("event '{}': no PMU '{}' among the units pmukit discovered{}", s.text, s.pmu,
                                     kernel ? " (the kernel's perf has it: use --backend perf or auto)" : ""));
      use_direct = true;
    } else if (req.mode == "auto" && !units.empty()) {
      why_not_direct = direct_problem(machine, units);
      use_direct = why_not_direct.empty() || (!kernel && req.force);
    }
    if (!use_direct) {
      if (!kernel) {
        if (units.empty())
          throw UsageError(fmt::format("event '{}': no PMU '{}': neither pmukit nor the kernel's perf knows it "
                                       "(pmu-discover lists the PMUs)",
                                       s.text, s.pmu));
        if (req.mode == "perf")
          throw UsageError(fmt::format("event '{}': the kernel has no perf PMU '{}'; pmukit can count it directly "
                                       "(--backend direct or auto): only the direct backend reaches units no kernel "
                                       "driver exposes",
                                       s.text, s.pmu));
        // A runtime condition (busy, no access), not a mistake in the command line.
        throw Error(fmt::format("event '{}': cannot be counted directly ({}), and the kernel has no perf PMU '{}'{}",
                                s.text, why_not_direct, s.pmu,
                                why_not_direct.find("in use") != std::string::npos
                                    ? "; --force takes a busy unit anyway (its registers are restored afterwards)"
                                    : ""));
      }
      if (req.force && req.mode == "perf")
        throw UsageError("--force takes busy units for direct programming; with --backend perf it has no use");
    }
  }
  // Auto mode: a PMU whose events the direct drivers would refuse (more events than counters, a
  // filter the registers cannot express) goes to the kernel's perf when it has that PMU, as a
  // whole -- its events stay in one place, and perf multiplexes what does not fit.
  if (req.mode == "auto") {
    std::map<std::string, std::vector<std::size_t>> by_pmu;
    for (std::size_t i = 0; i < specs.size(); ++i)
      if (choices[i].use_direct && choices[i].kernel && !specs[i].pmu.empty()) by_pmu[specs[i].pmu].push_back(i);
    for (const auto& [pmu_name, members] : by_pmu) {
      std::vector<events::EventSpec> group;
      for (auto i : members) group.push_back(specs[i]);
      if (auto refusal = direct_refusal(group, found.inventory); !refusal.empty()) {
        refusal = refusal.substr(0, refusal.find("; "));  // the reason, without its advice (which was perf)
        for (auto i : members) choices[i].use_direct = false, choices[i].why_not_direct = refusal;
      }
    }
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    if (skip && skip(s)) continue;
    const auto& [units, kernel, use_direct, why_not_direct] = choices[i];
    std::string key = s.pmu.empty() ? s.text : s.pmu;
    if (!decided.count(key)) {
      std::string n = use_direct ? fmt::format("{}: direct, {} unit{}", key, units.size(), units.size() == 1 ? "" : "s")
                      : req.mode == "perf" ? fmt::format("{}: perf (--backend perf)", key)
                      : units.empty()
                          ? fmt::format("{}: perf (a kernel PMU; pmukit discovered no unit of that name)", key)
                          : fmt::format("{}: perf, because {}", key, why_not_direct);
      decided[key] = n;
      composite->note(n);
    }
    if (use_direct)
      direct.push_back(s), direct_index.push_back(i);
    else
      perf_specs.push_back(s), perf_index.push_back(i);
  }
  if (!perf_specs.empty() && req.interval_ms && req.interval_ms < kPerfMinIntervalMs) {
    std::vector<std::string> why;
    for (const auto& [key, note] : decided)
      if (note.find(": perf") != std::string::npos) why.push_back(note);
    throw UsageError(fmt::format("-I {}: intervals under {} ms are a direct-backend ability (perf stat's limit), and "
                                 "these PMUs go through perf: {}",
                                 req.interval_ms, kPerfMinIntervalMs, fmt::join(why, "; ")));
  }
  if (!direct.empty()) {
    auto bound = events::bind_events(direct, found.inventory, platform::Database::builtin());
    for (auto& b : bound) b.spec = direct_index[b.spec];
    composite->add(make_direct_backend(machine, specs, bound, req.force, clock));
  }
  if (!perf_specs.empty()) {
    try {
      composite->add(make_perf_backend(machine, perf_specs, perf_index, req.per_socket, found.topology));
    } catch (const Error& e) {
      // When auto sent a PMU to perf because the direct driver refused it, perf's complaint alone
      // would hide the first reason: give both.
      std::string refused;
      for (auto i : perf_index)
        if (!choices[i].units.empty() && !choices[i].why_not_direct.empty()) {
          refused = fmt::format("; {} went to perf because {}", specs[i].pmu, choices[i].why_not_direct);
          break;
        }
      if (refused.empty()) throw;
      if (dynamic_cast<const UsageError*>(&e)) throw UsageError(e.what() + refused);
      throw Error(e.what() + refused);
    }
  }
  return composite;
}

}  // namespace pmukit::tools
