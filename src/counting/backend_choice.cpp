// pmukit -- backend choice per event: the preflight's typed verdicts decide, and the preflight
// itself goes on to the direct backend, which adopts its mappings and saved registers. Each event
// is bound to its units once, and each unit's events planned once: the checks below and the
// direct backend share them.
#include "pmukit/counting/backend_choice.h"

#include <exception>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "composite_backend.h"
#include "direct_backend.h"
#include "perf_backend.h"
#include "pmukit/access/machine.h"
#include "pmukit/events/unit_events.h"
#include "pmukit/perf/event_set.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/util/error.h"
#include "pmukit/util/suggest.h"
#include "pmukit/util/text.h"

namespace pmukit::counting {

std::optional<BackendMode> backend_mode(std::string_view name) {
  if (name == "direct") return BackendMode::Direct;
  if (name == "perf") return BackendMode::Perf;
  if (name == "auto") return BackendMode::Auto;
  return std::nullopt;
}

std::string_view backend_mode_name(BackendMode mode) {
  switch (mode) {
  case BackendMode::Direct:
    return "direct";
  case BackendMode::Perf:
    return "perf";
  case BackendMode::Auto:
    break;
  }
  return "auto";
}

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

// The events of one PMU as written, bound to its units and each unit's events planned: whether
// the direct drivers take them, worked out once.
struct PmuEvents {
  std::vector<std::size_t> specs;  // ascending
  bool checked = false;
  std::optional<Refusal> refusal;
  std::exception_ptr bind_error;  // binding an event failed: rethrown if it is counted directly
  std::size_t bind_error_spec = 0;
  std::map<const discovery::PmuUnit*, UnitWork> units;  // in inventory order
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
        preflight_(std::make_unique<pmu::Preflight>(machine, platform::Database::builtin())),
        binder_(found.inventory, platform::Database::builtin()), choices_(specs.size()), bound_(specs.size()),
        static_snapshot_(!machine.is_live() && !simulated) {}

  void recover_first(const sim::MachineClock& time, const std::function<void(const std::string&)>& note);
  void choose_each_event();
  void check_kernel_rules();
  void send_refused_pmus_to_perf();
  void note_decisions(CompositeBackend& composite);
  void check_interval_limit() const;
  void add_direct_part(CompositeBackend& composite, const sim::MachineClock& time);
  void add_perf_part(CompositeBackend& composite);

 private:
  bool skipped(std::size_t i) const { return skip_ && skip_(specs_[i]); }
  BackendMode mode(std::size_t i) const { return req_.mode_of(specs_[i].pmu); }
  bool only_perf() const;
  std::optional<Refusal> first_refusal(const std::vector<const discovery::PmuUnit*>& units);
  bool programmable_static(const std::optional<Refusal>& refused) const;
  PmuEvents& checked(const std::string& pmu);
  void bind_and_plan(PmuEvents& p);
  std::optional<Refusal> refusal_of_event(const syntax::EventSpec& s);
  void require_a_way(std::size_t i);
  std::vector<std::string> known_pmu_names() const;
  std::string decision_note(const std::string& key, std::size_t i) const;
  std::vector<std::size_t> members(bool direct) const;
  DirectWork direct_work(const std::vector<std::size_t>& index);
  [[noreturn]] void rethrow_with_first_reason(const Error& e, const std::vector<std::size_t>& perf) const;

  Machine& machine_;
  const std::vector<syntax::EventSpec>& specs_;
  const discovery::DiscoveryResult& found_;
  const BackendRequest& req_;
  bool (*skip_)(const syntax::EventSpec&);
  std::unique_ptr<pmu::Preflight> preflight_;
  events::Binder binder_;
  std::vector<Choice> choices_;
  std::vector<std::vector<events::BoundEvent>> bound_;  // per spec: on each of its units, once bound
  std::map<std::string, PmuEvents> by_pmu_;             // the specs with units, by PMU as written
  std::map<std::string, Decision> decisions_;           // PMU as written -> what was decided
  bool static_snapshot_;                                // a snapshot no pmu-sim serves: never programmed
};

bool Chooser::only_perf() const {
  if (req_.mode != BackendMode::Perf) return false;
  for (const auto& [pmu, m] : req_.per_pmu)
    if (m != BackendMode::Perf) return false;
  return true;
}

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
// first, and the caller is told (pmu/journal.h).
void Chooser::recover_first(const sim::MachineClock& time, const std::function<void(const std::string&)>& note) {
  preflight_->recover_first(found_.inventory, time.settle, note);
}

void Chooser::choose_each_event() {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (skipped(i)) continue;
    const auto& s = specs_[i];
    auto& c = choices_[i];
    c.units = s.pmu.empty() ? std::vector<const discovery::PmuUnit*>{} : found_.inventory.find(s.pmu);
    c.kernel = s.pmu.empty() || !perf::find_pmus(machine_, s.pmu).empty();  // bare names: perf software events
    if (!c.units.empty()) by_pmu_[s.pmu].specs.push_back(i);
    if (mode(i) == BackendMode::Direct) {
      if (c.units.empty())
        throw UsageError(fmt::format("event '{}': no PMU '{}' among the units pmukit discovered{}", s.text, s.pmu,
                                     c.kernel ? " (the kernel's perf has it: use --backend perf or auto)" : ""));
      // A unit's own refusal (in use, no access, a hostile file) is the more useful answer: the
      // session says it; a unit that could be programmed is refused on a static snapshot.
      if (programmable_static(first_refusal(c.units))) throw Error(static_snapshot_text(machine_));
      c.direct = true;
    } else if (mode(i) == BackendMode::Auto && !c.units.empty()) {
      c.refused = first_refusal(c.units);
      const bool static_refusal = programmable_static(c.refused);
      if (static_refusal) c.refused = Refusal{pmu::NoAccess{static_snapshot_text(machine_), 0}, c.units.front()->name};
      c.direct = !c.refused || (!c.kernel && req_.force && !static_refusal);
    }
    if (!c.direct) require_a_way(i);
  }
}

// Every PMU name an event may be written with: each discovered unit and each kernel PMU, and the
// type name of numbered ones ("uncore_imc" for "uncore_imc_3"), for a "did you mean" hint.
std::vector<std::string> Chooser::known_pmu_names() const {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    names.push_back(name);
    if (auto family = numbered_family(name)) names.emplace_back(*family);
  };
  for (const auto& u : found_.inventory.units) add(u.name);
  try {
    for (const auto& pmu : perf::list_pmus(machine_)) add(pmu.desc.name);
  } catch (const Error&) {  // an unreadable event_source directory only takes the kernel's names away
  }
  return names;
}

// An event not counted directly must have a kernel PMU; otherwise say why neither way works, and
// never send the user to a backend that cannot count it either.
void Chooser::require_a_way(std::size_t i) {
  const auto& s = specs_[i];
  const auto& c = choices_[i];
  const bool perf_mode = mode(i) == BackendMode::Perf;
  if (!c.kernel) {
    if (c.units.empty() && perf::is_core_pmu_name(s.pmu))
      throw Error(fmt::format("event '{}': the CPU's core PMU '{}' is not among this machine's perf PMUs: core "
                              "events are counted only through the kernel's perf, and it has no core PMU here (no "
                              "core PMU driver, or a virtual machine without a virtual PMU)",
                              s.text, s.pmu));
    if (c.units.empty())
      throw UsageError(fmt::format("event '{}': no PMU '{}'{}: neither pmukit nor the kernel's perf knows it "
                                   "(pmu-discover lists the PMUs)",
                                   s.text, s.pmu, did_you_mean(s.pmu, known_pmu_names())));
    if (auto direct_refusal = perf_mode ? refusal_of_event(s) : std::nullopt)
      throw UsageError(fmt::format("event '{}': the kernel has no perf PMU '{}' on this machine, and direct access "
                                   "cannot count it either: {}",
                                   s.text, s.pmu, direct_refusal->text()));
    if (perf_mode)
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
  if (req_.force && only_perf())
    throw UsageError("--force takes busy units for direct programming; with --backend perf it has no use");
}

// Binds the PMU's events (in -e order; the first that cannot be bound refuses them all) and plans
// each unit's (in inventory order; the first unit whose events cannot be counted even in turn
// refuses them): more events than counters are multiplexed, not refused. No register is written.
void Chooser::bind_and_plan(PmuEvents& p) {
  for (auto i : p.specs) {
    try {
      binder_.bind(specs_[i], i, bound_[i]);
    } catch (const Error& e) {
      p.refusal = Refusal{pmu::DoesNotFit{e.what(), ""}, specs_[p.specs.front()].pmu};
      p.bind_error = std::current_exception();
      p.bind_error_spec = i;
      return;
    }
    for (const auto& b : bound_[i]) {
      auto& w = p.units[b.unit];
      w.unit = b.unit;
      w.events.push_back(b.encoded);
      w.spec_of.push_back(i);
    }
  }
  for (auto& [unit, w] : p.units) {
    plan_unit(*preflight_, specs_, w);
    if (!pmu::ok(w.plan.verdict)) {
      p.refusal = Refusal{w.plan.verdict, unit->name};
      return;
    }
  }
}

PmuEvents& Chooser::checked(const std::string& pmu) {
  auto& p = by_pmu_.at(pmu);
  if (!p.checked) {
    p.checked = true;
    bind_and_plan(p);
  }
  return p;
}

// --backend perf, an event whose PMU the kernel lacks: why the direct drivers would refuse it
// alone (an error path: bound and planned apart from the rest).
std::optional<Refusal> Chooser::refusal_of_event(const syntax::EventSpec& s) {
  const std::vector<syntax::EventSpec> one{s};
  std::vector<events::BoundEvent> bound;
  try {
    binder_.bind(s, 0, bound);
  } catch (const Error& e) {
    return Refusal{pmu::DoesNotFit{e.what(), ""}, s.pmu};
  }
  std::map<const discovery::PmuUnit*, UnitWork> units;
  for (const auto& b : bound) {
    auto& w = units[b.unit];
    w.unit = b.unit;
    w.events.push_back(b.encoded);
    w.spec_of.push_back(0);
  }
  for (auto& [unit, w] : units) {
    plan_unit(*preflight_, one, w);
    if (!pmu::ok(w.plan.verdict)) return Refusal{w.plan.verdict, unit->name};
  }
  return std::nullopt;
}

// Whatever the backend: events that break a rule the unit's Linux driver enforces (one BDF filter
// per Tegra410 PCIe RC, a lane beyond the link width...) are a usage error naming the rule, before
// anything is opened or written. perf would not say it: the kernel refuses such an event only when
// it is scheduled, and perf stat shows "<not counted>".
void Chooser::check_kernel_rules() {
  for (const auto& [pmu_name, p] : by_pmu_)
    if (auto& c = checked(pmu_name); c.refusal && c.refusal->kernel_rule()) throw UsageError(c.refusal->text());
}

// Auto mode: a PMU whose events the direct drivers would refuse (a filter the registers cannot
// express, an event they do not know) goes to the kernel's perf when it has that PMU, as a whole:
// its events stay in one place. More events than counters stay direct: they are multiplexed.
void Chooser::send_refused_pmus_to_perf() {
  for (auto& [pmu_name, p] : by_pmu_) {
    std::vector<std::size_t> indices;
    for (auto i : p.specs)
      if (choices_[i].direct && choices_[i].kernel && mode(i) == BackendMode::Auto) indices.push_back(i);
    if (indices.empty()) continue;
    const auto& refusal = checked(pmu_name).refusal;
    if (!refusal) continue;
    // perf counts the live machine's kernel PMUs only: on a snapshot it cannot take these over.
    if (!machine_.is_live() && !machine_.options().live_perf)
      throw UsageError(fmt::format("{}; the kernel's perf PMU would count this on the live machine, and perf does "
                                   "not count a snapshot",
                                   refusal->text()));
    for (auto i : indices) choices_[i].direct = false, choices_[i].refused = refusal;
  }
}

std::string Chooser::decision_note(const std::string& key, std::size_t i) const {
  const auto& c = choices_[i];
  if (c.direct) return fmt::format("{}: direct, {} unit{}", key, c.units.size(), c.units.size() == 1 ? "" : "s");
  if (mode(i) == BackendMode::Perf) return fmt::format("{}: perf (--backend perf)", key);
  if (c.units.empty()) return fmt::format("{}: perf (a kernel PMU; pmukit discovered no unit of that name)", key);
  return fmt::format("{}: perf, because {}", key, c.refused ? c.refused->text() : "");
}

void Chooser::note_decisions(CompositeBackend& composite) {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (skipped(i)) continue;
    std::string key = specs_[i].pmu.empty() ? specs_[i].text : specs_[i].pmu;
    if (decisions_.count(key)) continue;
    Decision d{choices_[i].direct, decision_note(key, i)};
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

// The direct events' work per unit, from their bindings; a unit all of whose events are one PMU's
// keeps the plan made when they were checked (a unit named two ways is planned again, whole).
DirectWork Chooser::direct_work(const std::vector<std::size_t>& index) {
  const PmuEvents* failed = nullptr;  // the first event (in -e order) that could not be bound
  for (auto i : index) {
    const auto& p = checked(specs_[i].pmu);
    if (p.bind_error && (!failed || p.bind_error_spec < failed->bind_error_spec)) failed = &p;
  }
  if (failed) std::rethrow_exception(failed->bind_error);
  std::vector<events::BoundEvent> bound;
  for (auto i : index) bound.insert(bound.end(), bound_[i].begin(), bound_[i].end());
  DirectWork work = work_by_unit(specs_, bound);
  for (auto& w : work.units) {
    auto& planned = by_pmu_.at(specs_[w.spec_of.front()].pmu).units;
    auto it = planned.find(w.unit);
    if (it != planned.end() && it->second.planned && it->second.spec_of == w.spec_of) w = std::move(it->second);
  }
  return work;
}

void Chooser::add_direct_part(CompositeBackend& composite, const sim::MachineClock& time) {
  auto index = members(true);
  if (index.empty()) return;
  composite.add(make_direct_backend(std::move(preflight_), specs_, direct_work(index), req_.force, time,
                                    req_.mux_interval_ms * 1'000'000ull));
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
    const auto split = req_.per_cpu ? PerfSplit::PerCpu : req_.per_socket ? PerfSplit::PerSocket : PerfSplit::None;
    composite.add(make_perf_backend(machine_, perf_specs, index, split, found_.topology, req_.cpus));
  } catch (const Error& e) {
    rethrow_with_first_reason(e, index);
  }
}

}  // namespace

std::unique_ptr<Backend> make_backend(Machine& machine, const std::vector<syntax::EventSpec>& specs,
                                      const discovery::DiscoveryResult& found, const BackendRequest& req,
                                      const sim::MachineClock& time, bool (*skip)(const syntax::EventSpec&),
                                      const std::function<void(const std::string&)>& note) {
  Chooser chooser(machine, specs, found, req, skip, time.simulated());
  chooser.recover_first(time, note);
  chooser.choose_each_event();
  chooser.check_kernel_rules();
  chooser.send_refused_pmus_to_perf();
  auto composite = std::make_unique<CompositeBackend>();
  chooser.note_decisions(*composite);
  chooser.check_interval_limit();
  chooser.add_direct_part(*composite, time);
  chooser.add_perf_part(*composite);
  return composite;
}

}  // namespace pmukit::counting
