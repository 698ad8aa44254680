// pmukit -- direct counting sessions: admission, phased programming, sampling, restore.
#include "pmukit/pmu/session.h"

#include <unistd.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "batched_sample.h"
#include "flat_sample.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/register_window.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/pmu/preflight.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

DirectSession::DirectSession(Machine& machine, std::vector<UnitEvents> work, const platform::Database& db,
                             SessionOptions options)
    : DirectSession(std::make_unique<Preflight>(machine, db), std::move(work), options) {}

DirectSession::DirectSession(std::unique_ptr<Preflight> preflight, std::vector<UnitEvents> work, SessionOptions options)
    : preflight_(std::move(preflight)), options_(options), work_(std::move(work)),
      flat_(std::make_unique<FlatSample>()), batched_(std::make_unique<BatchedSample>()) {
  admit();
  write_journal();
  preflight_->release_machine_lock(units());
  WriteGuard& g = preflight_->guard();
  g.record(options_.trace);
  g.settle_commands(options_.settle);
  settled_writes_ = g.writes();
  programmed_ = true;  // from here on, the destructor restores
  plans_.resize(work_.size());
  trackers_.resize(work_.size());
  raw_.resize(work_.size());
  overflow_.resize(work_.size());
  values_.resize(work_.size());
  guarded_.resize(work_.size());
  guarded_unit_.resize(work_.size());
  turns_.resize(work_.size());
  try {
    // Phase by phase over every unit, settling once between phases.
    for (auto* d : drivers_) d->reset(g);
    settle();
    for (std::size_t u = 0; u < drivers_.size(); ++u) drivers_[u]->configure(g, work_[u].events, plans_[u]);
    settle();
  } catch (...) {
    restore();
    throw;
  }
  for (std::size_t u = 0; u < drivers_.size(); ++u) track(u);
  compile_flat();
}

DirectSession::~DirectSession() {
  restore();
}

// Everything that can fail without writing, in the order a user is best told about it: units
// nothing here can program, events that do not fit, registers out of reach, units in use.
void DirectSession::admit() {
  for (const auto& w : work_) {
    auto v = preflight_->fit(*w.unit, w.events);
    if (const auto* n = std::get_if<NoDriver>(&v)) throw Error(n->why);
    if (const auto* d = std::get_if<DoesNotFit>(&v)) throw UsageError(d->message());
  }
  for (const auto& w : work_)
    if (const auto* n = std::get_if<NoAccess>(&preflight_->access(*w.unit))) {
      if (n->err) throw SystemError(n->why, n->err);
      throw Error(n->why);
    }
  for (const auto& w : work_)
    if (const auto* b = std::get_if<Busy>(&preflight_->access(*w.unit)); b && !options_.force)
      throw Error(fmt::format("{}: in use ({}); another tool or the kernel's perf driver may own it. Use --force to "
                              "take it anyway (its registers are restored afterwards), or --backend perf",
                              w.unit->name, b->what));
  for (const auto& w : work_) drivers_.push_back(preflight_->driver(*w.unit));
}

// The units the session programs.
std::vector<const discovery::PmuUnit*> DirectSession::units() const {
  std::vector<const discovery::PmuUnit*> out;
  for (const auto& w : work_) out.push_back(w.unit);
  return out;
}

// Every original value the session may write over, and the writes that undo what programming
// turns on beyond them, on disk before the first write, named after the first unit.
void DirectSession::write_journal() {
  if (work_.empty()) return;  // nothing to program
  const WriteGuard& g = preflight_->guard();
  const std::string& first = work_.front().unit->name;  // the journal's name: a unit whose lock it holds
  journal_path_ = journal_path(preflight_->machine(), first);
  journal_ = Journal{JournalWriter::self(preflight_->unit_lock(first).file()),
                     preflight_->machine().files().real_path().string(),
                     {},
                     {}};
  std::set<Reg> seen;
  for (const auto& w : work_)
    for (const auto& r : preflight_->layout(*w.unit).owned())
      if (seen.insert(r).second) journal_.entries.push_back({r, g.original(r)});
  for (std::size_t u = 0; u < work_.size(); ++u) journal_undo(drivers_[u]->undo(work_[u].events));
  pmu::write_journal(preflight_->machine(), journal_path_, journal_);
  journaled_ = true;
  write_point(0);
}

// Adds the undo writes (of a unit's events) that the journal lacks; true when any.
bool DirectSession::journal_undo(const std::vector<JournalEntry>& undo) {
  bool added = false;
  for (const auto& w : undo)
    if (std::find(journal_.undo.begin(), journal_.undo.end(), w) == journal_.undo.end()) {
      journal_.undo.push_back(w);
      added = true;
    }
  return added;
}

// The counters of unit u as its plan says: a tracker of the right width for each.
void DirectSession::track(std::size_t u) {
  trackers_[u].clear();
  for (const auto& c : plans_[u].counters) trackers_[u].emplace_back(c.width);
  raw_[u].assign(plans_[u].counters.size(), 0);
  overflow_[u].assign(plans_[u].counters.size(), false);
  values_[u].assign(plans_[u].counters.size(), CounterValue{});
}

// The flat array and the batched reads over every unit's plan.
void DirectSession::compile_flat() {
  flat_->clear();
  batched_->clear();
  for (std::size_t u = 0; u < plans_.size(); ++u) compile_unit(u);
  batched_->compile();
}

// Unit u's counters onto the flat pass, the batched reads or the guarded path, replacing what it
// had there (they point into its trackers and values, which track() refills). Its overflow
// status banks go to the flat pass only with every counter of the unit (a bank read and cleared
// in one place); otherwise its counters with a flag stay guarded with the banks.
void DirectSession::compile_unit(std::size_t u) {
  flat_->begin_unit(u);
  batched_->begin_unit(u);
  compile_counters(u);
  flat_->end_unit();
  batched_->end_unit();
}

void DirectSession::compile_counters(std::size_t u) {
  RegisterIo& io = preflight_->guard().io();
  const SamplePlan& p = plans_[u];
  auto window = [&](const Reg& r) -> const RegisterWindow& {
    return io.window(std::get<MmioAddress>(r.at).phys, r.width / 8u);
  };
  bool whole = p.status.size() <= 8;  // as read(): at most 8 banks
  for (const auto& st : p.status) whole = whole && FlatSample::eligible(st);
  for (const auto& c : p.counters) whole = whole && FlatSample::eligible(p, c);
  std::uint32_t bank[8] = {};
  if (whole)
    for (std::size_t s = 0; s < p.status.size(); ++s) bank[s] = flat_->add_status(window(p.status[s].reg), p.status[s]);
  guarded_[u].assign(p.counters.size(), 1);
  guarded_unit_[u] = !whole && !p.status.empty();
  for (std::size_t c = 0; c < p.counters.size(); ++c) {
    const auto& counter = p.counters[c];
    const Reg& load = p.loads[counter.first];
    if (FlatSample::eligible(p, counter) && (whole || counter.status < 0)) {
      const std::uint32_t status = counter.status >= 0 ? bank[counter.status] : 0;
      flat_->add(window(load), load, trackers_[u][c], values_[u][c], counter.multiplier, status, counter.bit);
    } else if (counter.status < 0 && BatchedSample::eligible(p, counter)) {
      batched_->add(io, load, trackers_[u][c], values_[u][c], counter.multiplier);
    } else {
      guarded_unit_[u] = 1;
      continue;
    }
    guarded_[u][c] = 0;
  }
}

void DirectSession::settle() {
  const std::size_t writes = preflight_->guard().writes();
  if (options_.settle && writes != settled_writes_) options_.settle->settle();
  settled_writes_ = writes;
}

namespace {

// The sum of a counter's loads, high parts (slices with a scale: a CMN DTC counter the local
// counters carry into) read before and after the low parts, again while they move -- hi-lo-hi
// across registers, so a carry between two loads is never counted twice or not at all.
std::uint64_t read_counter(WriteGuard& g, const SamplePlan& p, const SamplePlan::Counter& counter) {
  auto sum = [&](bool high) {
    std::uint64_t s = 0;
    for (std::uint32_t i = counter.first; i < counter.first + counter.count; ++i)
      if ((p.slices[i].scale != 0) == high) s += p.slices[i].apply(g.read(p.loads[i]));
    return s;
  };
  const bool split = std::any_of(p.slices.begin() + counter.first, p.slices.begin() + counter.first + counter.count,
                                 [](const SamplePlan::Slice& s) { return s.scale != 0; });
  if (!split) return sum(false);
  std::uint64_t high = sum(true), low = 0;
  for (int tries = 0; tries < 4; ++tries) {
    low = sum(false);
    const std::uint64_t again = sum(true);
    if (again == high) break;
    high = again;
  }
  return high + low;
}

}  // namespace

// Unit u's counters through the guard: all of them, or only those the flat pass leaves to it.
void DirectSession::read(std::size_t u, bool guarded_only) {
  WriteGuard& g = preflight_->guard();
  const SamplePlan& p = plans_[u];
  std::uint32_t seen[8] = {};  // overflow banks: a CoreSight block has at most 8 (256 counters)
  for (std::size_t s = 0; s < p.status.size() && s < std::size(seen); ++s)
    seen[s] = static_cast<std::uint32_t>(g.read(p.status[s].reg)) & p.status[s].mask;
  for (std::size_t c = 0; c < p.counters.size(); ++c) {
    if (guarded_only && !guarded_[u][c]) continue;
    const auto& counter = p.counters[c];
    // The select write (a command register: under a simulator the guard settles it through
    // options_.settle before returning, so the model shows the selected counter), then the loads.
    if (counter.select >= 0) g.write(p.selects[counter.select].reg, p.selects[counter.select].value);
    raw_[u][c] = read_counter(g, p, counter);
    overflow_[u][c] = counter.status >= 0 && (seen[counter.status] >> counter.bit & 1);
  }
  for (std::size_t s = 0; s < p.status.size() && s < std::size(seen); ++s)
    if (seen[s]) g.write(p.status[s].reg, seen[s]);  // write-one-to-clear what we saw
}

void DirectSession::baseline(std::size_t u) {
  read(u, false);
  for (std::size_t c = 0; c < raw_[u].size(); ++c)
    trackers_[u][c].start(plans_[u].counters[c].zero_at_start ? 0 : raw_[u][c]);
}

void DirectSession::start() {
  // Baselines first, then start every unit back to back, so all count over the same window.
  for (std::size_t u = 0; u < drivers_.size(); ++u) baseline(u);
  for (auto* d : drivers_) d->start(preflight_->guard());
  settle();
}

void DirectSession::stop() {
  for (auto* d : drivers_) d->stop(preflight_->guard());
  settle();
}

const std::vector<std::vector<CounterValue>>& DirectSession::sample() {
  flat_->sample(preflight_->guard());
  batched_->sample();
  for (std::size_t u = 0; u < drivers_.size(); ++u) {
    if (!guarded_unit_[u]) continue;
    read(u, true);
    for (std::size_t c = 0; c < raw_[u].size(); ++c) {
      if (!guarded_[u][c]) continue;
      auto d = trackers_[u][c].update(raw_[u][c], overflow_[u][c]);
      const std::uint64_t m = plans_[u].counters[c].multiplier;
      values_[u][c] = {d.delta * m, trackers_[u][c].total() * m, d.wrapped, d.lost, d.delta};
    }
  }
  return values_;
}

void DirectSession::reprogram(std::size_t u, std::vector<syntax::EncodedEvent> events) {
  auto v = preflight_->fit(*work_.at(u).unit, events);
  if (const auto* d = std::get_if<DoesNotFit>(&v)) throw UsageError(d->message());
  work_[u].events = std::move(events);
  program(u, work_[u].events, drivers_[u]->undo(work_[u].events), nullptr);
}

void DirectSession::plan_turns(std::size_t u, std::vector<std::vector<syntax::EncodedEvent>> sets) {
  auto& turns = turns_.at(u);
  turns.clear();
  for (auto& events : sets) {
    auto v = preflight_->fit(*work_[u].unit, events);
    if (const auto* d = std::get_if<DoesNotFit>(&v)) throw UsageError(d->message());
    auto undo = drivers_[u]->undo(events);
    auto placed = drivers_[u]->place(events);
    turns.push_back({std::move(events), std::move(undo), std::move(placed)});
  }
}

void DirectSession::turn(std::size_t u, std::size_t t) {
  const Turn& next = turns_.at(u).at(t);
  program(u, next.events, next.undo, next.placed);
}

// Unit u stopped, reset, configured with `events` and started again, each phase settled; only
// its own trackers and sampling entries change.
void DirectSession::program(std::size_t u, const std::vector<syntax::EncodedEvent>& events,
                            const std::vector<JournalEntry>& undo, const std::shared_ptr<const Placement>& placed) {
  WriteGuard& g = preflight_->guard();
  drivers_[u]->stop(g);
  settle();
  drivers_[u]->reset(g);
  settle();
  // New lane events are journalled before configure() programs them (and start() turns them on).
  if (journaled_ && journal_undo(undo)) pmu::write_journal(preflight_->machine(), journal_path_, journal_);
  plans_[u].clear();
  drivers_[u]->configure_placed(g, events, placed, plans_[u]);
  settle();
  track(u);
  compile_unit(u);
  baseline(u);
  drivers_[u]->start(g);
  settle();
}

void DirectSession::restore_phase(RestorePhase phase, std::vector<bool>& failed) {
  // Reverse order of programming; one unit's failure does not stop the others.
  for (std::size_t i = drivers_.size(); i-- > 0;) {
    if (failed[i]) continue;
    try {
      drivers_[i]->restore(preflight_->guard(), phase);
    } catch (const std::exception& e) {
      failed[i] = true;
      restore_errors_.push_back(fmt::format("{}: restore failed: {}", drivers_[i]->unit().name, e.what()));
    }
  }
  try {
    settle();
  } catch (const std::exception& e) {
    restore_errors_.push_back(fmt::format("restore: {}", e.what()));
  }
}

namespace {

// A restore goes on when the simulator is gone: a command write whose settle fails stops settling
// and lets the writes go on; the phase's own settle says why (restore_phase).
class RestoreSettle : public Settle {
 public:
  explicit RestoreSettle(Settle* inner) : inner_(inner) {}
  void settle() override {
    if (!inner_) return;
    try {
      inner_->settle();
    } catch (const std::exception&) {
      inner_ = nullptr;
    }
  }

 private:
  Settle* inner_;
};

}  // namespace

void DirectSession::restore() {
  if (!programmed_ || restored_) return;
  restored_ = true;
  std::vector<bool> failed(drivers_.size(), false);
  RestoreSettle commands(options_.settle);
  preflight_->guard().settle_commands(options_.settle ? &commands : nullptr);
  for (auto phase : kRestorePhases) restore_phase(phase, failed);
  preflight_->guard().settle_commands(nullptr);
  preflight_->guard().record(nullptr);
  // Kept when a register could not be put back: the next run restores the originals (it says
  // so). A settle that failed (pmu-sim gone) wrote everything: the journal goes.
  if (!journaled_ || std::find(failed.begin(), failed.end(), true) != failed.end()) return;
  try {
    remove_journal(preflight_->machine(), journal_path_);
  } catch (const std::exception& e) {
    restore_errors_.push_back(e.what());
  }
}

std::uint64_t DirectSession::max_read_period_ns() const {
  std::uint64_t period = kLongestReadPeriodNs;
  for (const auto& unit : trackers_)
    for (const auto& t : unit) {
      if (t.width() >= 48) continue;
      // Half the wrap time at the fastest plausible rate, in whole milliseconds (reads stay on a run's
      // millisecond grid); never below 1 ms (a 22-bit counter).
      constexpr std::uint64_t kMs = 1'000'000;
      std::uint64_t wrap_ns = (std::uint64_t{1} << t.width()) / kMaxCountsPerNs;
      period = std::min(period, std::max<std::uint64_t>(wrap_ns / 2 / kMs * kMs, kMs));
    }
  return period;
}

std::size_t DirectSession::register_writes() const {
  return preflight_->guard().writes();
}

}  // namespace pmukit::pmu
