// pmukit tools -- backend choice per event: the preflight's typed verdicts decide, and the preflight
// itself goes on to the direct backend, which adopts its mappings and saved registers.
#include "common/backend_choice.h"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/composite_backend.h"
#include "common/direct_backend.h"
#include "common/perf_backend.h"
#include "common/tool.h"
#include "pmukit/access/machine.h"
#include "pmukit/events/unit_events.h"
#include "pmukit/perf/event_set.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/util/error.h"

namespace pmukit::tools {

namespace {

// Why an event's units are not counted directly: the first unit's verdict that is not Ok.
struct Refusal {
  pmu::Verdict verdict;
  std::string unit;
  std::string text() const { return pmu::describe(verdict, unit); }
  bool busy() const { return std::holds_alternative<pmu::Busy>(verdict); }
  bool kernel_rule() const {
    const auto* d = std::get_if<pmu::DoesNotFit>(&verdict);
    return d && d->kernel_rule;
  }
};

// How one -e event is counted.
struct Choice {
  std::vector<const discovery::PmuUnit*> units;  // the discovered units it names
  bool kernel = false;                           // the kernel's perf has its PMU (or it is a bare name)
  bool direct = false;
  std::optional<Refusal> refused;  // auto mode: why not directly
};

// What was decided for a PMU as written, once per PMU.
struct Decision {
  bool direct = false;
  std::string note;
};

class Chooser {
 public:
  Chooser(Machine& machine, const std::vector<syntax::EventSpec>& specs, const discovery::DiscoveryResult& found,
          const BackendRequest& req, bool (*skip)(const syntax::EventSpec&), bool simulated)
      : machine_(machine), specs_(specs), found_(found), req_(req), skip_(skip),
        preflight_(std::make_unique<pmu::Preflight>(machine, platform::Database::builtin())), choices_(specs.size()),
        static_snapshot_(!machine.is_live() && !simulated) {}

  void recover_first(const sim::MachineClock& time);
  void choose_each_event();
  void check_kernel_rules();
  void send_refused_pmus_to_perf();
  void note_decisions(CompositeBackend& composite);
  void check_interval_limit() const;
  void add_direct_part(CompositeBackend& composite, const sim::MachineClock& time);
  void add_perf_part(CompositeBackend& composite);

 private:
  bool skipped(std::size_t i) const { return skip_ && skip_(specs_[i]); }
  std::optional<Refusal> first_refusal(const std::vector<const discovery::PmuUnit*>& units);
  bool programmable_static(const std::optional<Refusal>& refused) const;
  std::optional<Refusal> refusal_of_group(const std::vector<syntax::EventSpec>& group);
  void require_a_way(const syntax::EventSpec& s, const Choice& c);
  std::string decision_note(const std::string& key, const Choice& c) const;
  std::vector<std::size_t> members(bool direct) const;
  [[noreturn]] void rethrow_with_first_reason(const Error& e, const std::vector<std::size_t>& perf) const;

  Machine& machine_;
  const std::vector<syntax::EventSpec>& specs_;
  const discovery::DiscoveryResult& found_;
  const BackendRequest& req_;
  bool (*skip_)(const syntax::EventSpec&);
  std::unique_ptr<pmu::Preflight> preflight_;
  std::vector<Choice> choices_;
  std::map<std::string, Decision> decisions_;  // PMU as written -> what was decided
  bool static_snapshot_;                       // a snapshot no pmu-sim serves: never programmed
};

// A snapshot without a simulator is a set of files: what is written stays (a counter enabled
// stays enabled, a write-one-to-clear register is not cleared), and nothing counts. Programming it
// would change it for every later reader, so it is refused, with the way to make it count.
std::string static_snapshot_text(const Machine& machine) {
  return fmt::format("{} is a static snapshot: no pmu-sim runs on it, so its registers are files that would keep "
                     "what is written and never count; start 'pmu-sim run {}' first",
                     machine.describe(), machine.root().string());
}

// A static snapshot whose unit would be programmed (nothing refuses it, or --force takes it busy).
bool Chooser::programmable_static(const std::optional<Refusal>& refused) const {
  return static_snapshot_ && (!refused || (refused->busy() && req_.force));
}

std::optional<Refusal> Chooser::first_refusal(const std::vector<const discovery::PmuUnit*>& units) {
  for (const auto* u : units)
    if (const auto& v = preflight_->access(*u); !pmu::ok(v)) return Refusal{v, u->name};
  return std::nullopt;
}

// A run killed with SIGKILL left its journal: when this run takes the lock, the originals go back
// first, and the user is told (pmu/journal.h).
void Chooser::recover_first(const sim::MachineClock& time) {
  preflight_->recover_first(found_.inventory, time.settle,
                            [](const std::string& m) { fmt::print(stderr, "{}: {}\n", tool_name(), m); });
}

void Chooser::choose_each_event() {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (skipped(i)) continue;
    const auto& s = specs_[i];
    auto& c = choices_[i];
    c.units = s.pmu.empty() ? std::vector<const discovery::PmuUnit*>{} : found_.inventory.find(s.pmu);
    c.kernel = s.pmu.empty() || !perf::find_pmus(machine_, s.pmu).empty();  // bare names: perf software events
    if (req_.mode == "direct") {
      if (c.units.empty())
        throw UsageError(fmt::format("event '{}': no PMU '{}' among the units pmukit discovered{}", s.text, s.pmu,
                                     c.kernel ? " (the kernel's perf has it: use --backend perf or auto)" : ""));
      // A unit's own refusal (in use, no access, a hostile file) is the more useful answer: the
      // session says it; a unit that could be programmed is refused on a static snapshot.
      if (programmable_static(first_refusal(c.units))) throw Error(static_snapshot_text(machine_));
      c.direct = true;
    } else if (req_.mode == "auto" && !c.units.empty()) {
      c.refused = first_refusal(c.units);
      const bool static_refusal = programmable_static(c.refused);
      if (static_refusal) c.refused = Refusal{pmu::NoAccess{static_snapshot_text(machine_), 0}, c.units.front()->name};
      c.direct = !c.refused || (!c.kernel && req_.force && !static_refusal);
    }
    if (!c.direct) require_a_way(s, c);
  }
}

// An event not counted directly must have a kernel PMU; otherwise say why neither way works, and
// never send the user to a backend that cannot count it either.
void Chooser::require_a_way(const syntax::EventSpec& s, const Choice& c) {
  if (!c.kernel) {
    if (c.units.empty() && perf::is_core_pmu_name(s.pmu))
      throw Error(fmt::format("event '{}': the CPU's core PMU '{}' is not among this machine's perf PMUs: core "
                              "events are counted only through the kernel's perf, and it has no core PMU here (no "
                              "core PMU driver, or a virtual machine without a virtual PMU)",
                              s.text, s.pmu));
    if (c.units.empty())
      throw UsageError(fmt::format("event '{}': no PMU '{}': neither pmukit nor the kernel's perf knows it "
                                   "(pmu-discover lists the PMUs)",
                                   s.text, s.pmu));
    if (auto direct_refusal = req_.mode == "perf" ? refusal_of_group({s}) : std::nullopt)
      throw UsageError(fmt::format("event '{}': the kernel has no perf PMU '{}' on this machine, and direct access "
                                   "cannot count it either: {}",
                                   s.text, s.pmu, direct_refusal->text()));
    if (req_.mode == "perf")
      throw UsageError(fmt::format("event '{}': the kernel has no perf PMU '{}'; pmukit can count it directly "
                                   "(--backend direct or auto): only the direct backend reaches units no kernel "
                                   "driver exposes",
                                   s.text, s.pmu));
    // A runtime condition (busy, no access), not a mistake in the command line.
    throw Error(fmt::format("event '{}': cannot be counted directly ({}), and the kernel has no perf PMU '{}'{}",
                            s.text, c.refused ? c.refused->text() : "", s.pmu,
                            c.refused && c.refused->busy()
                                ? "; --force takes a busy unit anyway (its registers are restored afterwards)"
                                : ""));
  }
  if (req_.force && req_.mode == "perf")
    throw UsageError("--force takes busy units for direct programming; with --backend perf it has no use");
}

// Why the direct drivers refuse these events (all naming one PMU): binding them, or fitting them on
// a unit even in turn (more events than counters are multiplexed), checked before anything is
// written.
std::optional<Refusal> Chooser::refusal_of_group(const std::vector<syntax::EventSpec>& group) {
  struct Events {
    std::vector<syntax::EncodedEvent> encoded;
    std::vector<std::size_t> spec_of;
  };
  std::map<const discovery::PmuUnit*, Events> per_unit;
  try {
    for (auto& b : events::bind_events(group, found_.inventory, platform::Database::builtin())) {
      per_unit[b.unit].encoded.push_back(std::move(b.encoded));
      per_unit[b.unit].spec_of.push_back(b.spec);
    }
  } catch (const Error& e) {
    return Refusal{pmu::DoesNotFit{e.what(), ""}, group.front().pmu};
  }
  for (auto& [unit, e] : per_unit) {
    const auto groups = groups_of(group, e.spec_of);
    pmu::inherit_group_filters(*preflight_, *unit, e.encoded, groups);
    if (auto plan = pmu::plan_rotation(*preflight_, *unit, e.encoded, groups); !pmu::ok(plan.verdict))
      return Refusal{plan.verdict, unit->name};
  }
  return std::nullopt;
}

// Whatever the backend: events that break a rule the unit's Linux driver enforces (one BDF filter
// per Tegra410 PCIe RC, a lane beyond the link width...) are a usage error naming the rule, before
// anything is opened or written. perf would not say it: the kernel refuses such an event only when
// it is scheduled, and perf stat shows "<not counted>".
void Chooser::check_kernel_rules() {
  std::map<std::string, std::vector<syntax::EventSpec>> by_pmu;
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (!skipped(i) && !choices_[i].units.empty()) by_pmu[specs_[i].pmu].push_back(specs_[i]);
  for (const auto& [pmu_name, group] : by_pmu)
    if (auto refusal = refusal_of_group(group); refusal && refusal->kernel_rule()) throw UsageError(refusal->text());
}

// Auto mode: a PMU whose events the direct drivers would refuse (a filter the registers cannot
// express, an event they do not know) goes to the kernel's perf when it has that PMU, as a whole:
// its events stay in one place. More events than counters stay direct: they are multiplexed.
void Chooser::send_refused_pmus_to_perf() {
  std::map<std::string, std::vector<std::size_t>> by_pmu;
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (choices_[i].direct && choices_[i].kernel && !specs_[i].pmu.empty()) by_pmu[specs_[i].pmu].push_back(i);
  for (const auto& [pmu_name, indices] : by_pmu) {
    std::vector<syntax::EventSpec> group;
    for (auto i : indices) group.push_back(specs_[i]);
    auto refusal = refusal_of_group(group);
    if (!refusal) continue;
    // perf counts the live machine's kernel PMUs only: on a snapshot it cannot take these over.
    if (!machine_.is_live() && !machine_.options().live_perf)
      throw UsageError(fmt::format("{}; the kernel's perf PMU would count this on the live machine, and perf does "
                                   "not count a snapshot",
                                   refusal->text()));
    for (auto i : indices) choices_[i].direct = false, choices_[i].refused = refusal;
  }
}

std::string Chooser::decision_note(const std::string& key, const Choice& c) const {
  if (c.direct) return fmt::format("{}: direct, {} unit{}", key, c.units.size(), c.units.size() == 1 ? "" : "s");
  if (req_.mode == "perf") return fmt::format("{}: perf (--backend perf)", key);
  if (c.units.empty()) return fmt::format("{}: perf (a kernel PMU; pmukit discovered no unit of that name)", key);
  return fmt::format("{}: perf, because {}", key, c.refused ? c.refused->text() : "");
}

void Chooser::note_decisions(CompositeBackend& composite) {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (skipped(i)) continue;
    std::string key = specs_[i].pmu.empty() ? specs_[i].text : specs_[i].pmu;
    if (decisions_.count(key)) continue;
    Decision d{choices_[i].direct, decision_note(key, choices_[i])};
    composite.note(d.note);
    decisions_.emplace(key, std::move(d));
  }
}

void Chooser::check_interval_limit() const {
  if (!req_.interval_ms || req_.interval_ms >= kPerfMinIntervalMs || members(false).empty()) return;
  std::vector<std::string> why;
  for (const auto& [key, d] : decisions_)
    if (!d.direct) why.push_back(d.note);
  throw UsageError(fmt::format("-I {}: intervals under {} ms are a direct-backend ability (perf stat's limit), and "
                               "these PMUs go through perf: {}",
                               req_.interval_ms, kPerfMinIntervalMs, fmt::join(why, "; ")));
}

std::vector<std::size_t> Chooser::members(bool direct) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (!skipped(i) && choices_[i].direct == direct) out.push_back(i);
  return out;
}

void Chooser::add_direct_part(CompositeBackend& composite, const sim::MachineClock& time) {
  auto index = members(true);
  if (index.empty()) return;
  std::vector<syntax::EventSpec> direct;
  for (auto i : index) direct.push_back(specs_[i]);
  auto bound = events::bind_events(direct, found_.inventory, platform::Database::builtin());
  for (auto& b : bound) b.spec = index[b.spec];
  composite.add(
      make_direct_backend(std::move(preflight_), specs_, bound, req_.force, time, req_.mux_interval_ms * 1'000'000ull));
}

// When auto sent a PMU to perf because the direct driver refused it, perf's complaint alone would
// hide the first reason: give both.
void Chooser::rethrow_with_first_reason(const Error& e, const std::vector<std::size_t>& perf) const {
  for (auto i : perf)
    if (!choices_[i].units.empty() && choices_[i].refused) {
      auto both = fmt::format("{}; {} went to perf because {}", e.what(), specs_[i].pmu, choices_[i].refused->text());
      if (dynamic_cast<const UsageError*>(&e)) throw UsageError(both);
      throw Error(both);
    }
  throw;
}

void Chooser::add_perf_part(CompositeBackend& composite) {
  auto index = members(false);
  if (index.empty()) return;
  std::vector<syntax::EventSpec> perf_specs;
  for (auto i : index) perf_specs.push_back(specs_[i]);
  try {
    composite.add(make_perf_backend(machine_, perf_specs, index, req_.per_socket, found_.topology));
  } catch (const Error& e) {
    rethrow_with_first_reason(e, index);
  }
}

}  // namespace

std::unique_ptr<Backend> make_backend(Machine& machine, const std::vector<syntax::EventSpec>& specs,
                                      const discovery::DiscoveryResult& found, const BackendRequest& req,
                                      const sim::MachineClock& time, bool (*skip)(const syntax::EventSpec&)) {
  Chooser chooser(machine, specs, found, req, skip, time.simulated());
  chooser.recover_first(time);
  chooser.choose_each_event();
  chooser.check_kernel_rules();
  if (req.mode == "auto") chooser.send_refused_pmus_to_perf();
  auto composite = std::make_unique<CompositeBackend>();
  chooser.note_decisions(*composite);
  chooser.check_interval_limit();
  chooser.add_direct_part(*composite, time);
  chooser.add_perf_part(*composite);
  return composite;
}

}  // namespace pmukit::tools
