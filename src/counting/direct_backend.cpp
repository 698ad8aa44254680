// pmukit -- direct register programming through pmukit::pmu::DirectSession, with
// time-division multiplexing of units whose events outnumber their counters.
#include "direct_backend.h"

#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/counting/pmu_places.h"
#include "pmukit/pmu/multiplex.h"
#include "pmukit/pmu/session.h"
#include "pmukit/util/error.h"

namespace pmukit::counting {

namespace {

void place(UnitWork& w) {
  w.position.assign(w.events.size(), -1);
  const auto& set = w.plan.sets.at(w.on);
  for (std::size_t p = 0; p < set.size(); ++p) w.position[set[p]] = static_cast<int>(p);
}

// A refusal comes before the session exists, so before any register is written.
void check_plan(const UnitWork& w) {
  if (const auto* n = std::get_if<pmu::NoDriver>(&w.plan.verdict)) throw Error(n->why);
  if (const auto* d = std::get_if<pmu::DoesNotFit>(&w.plan.verdict)) throw UsageError(d->message());
}

class DirectBackend : public Backend {
 public:
  DirectBackend(std::unique_ptr<pmu::Preflight> preflight, const std::vector<syntax::EventSpec>& specs, DirectWork work,
                bool force, const sim::MachineClock& time, std::uint64_t mux_interval_ns)
      : clock_(*time.clock), mux_ns_(mux_interval_ns), units_(std::move(work.units)), slots_(std::move(work.slots)) {
    std::vector<pmu::UnitEvents> first_sets;
    for (auto& w : units_) {
      if (!w.planned) plan_unit(*preflight, specs, w);
      check_plan(w);
      place(w);
      multiplexed_ = multiplexed_ || w.plan.multiplexed();
      first_sets.push_back({w.unit, pmu::events_of(w.events, w.plan.sets.front())});
    }
    pmu::SessionOptions opts;
    opts.force = force;
    opts.settle = time.settle;
    session_ = std::make_unique<pmu::DirectSession>(std::move(preflight), std::move(first_sets), opts);
    // Each multiplexed unit's sets, copied and checked once: a rotation then allocates nothing.
    for (std::size_t u = 0; u < units_.size(); ++u) {
      const auto& w = units_[u];
      if (!w.plan.multiplexed()) continue;
      std::vector<std::vector<syntax::EncodedEvent>> sets;
      for (const auto& set : w.plan.sets) sets.push_back(pmu::events_of(w.events, set));
      session_->plan_turns(u, std::move(sets));
    }
    name_rows();
    pick();
  }

  void start() override {
    session_->start();
    last_rotation_ = clock_.now_ns();
    counting_ = true;
  }
  void stop() override {
    counting_ = false;
    session_->stop();
  }

  void read(std::uint64_t window_ns, std::vector<Row>& into) override {
    const std::size_t at = into.size();
    into.insert(into.end(), rows_.begin(), rows_.end());
    session_->sample();
    counts_of(window_ns, into.data() + at);
    rotate_if_due();
  }
  // One row per slot, whatever set a multiplexed unit has on its counters.
  bool rereads() const override { return true; }
  void reread(std::uint64_t window_ns, std::vector<Row>& rows, std::size_t& at) override {
    session_->sample();
    counts_of(window_ns, rows.data() + at);
    at += slots_.size();
    rotate_if_due();
  }

  std::uint64_t max_read_period_ns() const override {
    const std::uint64_t period = session_->max_read_period_ns();
    return multiplexed_ ? std::min(period, mux_ns_) : period;
  }

  std::vector<std::string> notes() const override {
    // Units, not names: one kernel PMU name covers a box on every socket.
    std::map<std::string, std::set<const discovery::PmuUnit*>> by_family;
    for (const auto& s : slots_) by_family[std::string(discovery::family_name(*s.bound.unit))].insert(s.bound.unit);
    std::vector<std::string> out;
    for (const auto& [family, names] : by_family)
      out.push_back(fmt::format("direct register access ({}, {} unit{}; {})", family, names.size(),
                                names.size() == 1 ? "" : "s", clock_.describe()));
    for (auto& n : multiplex_notes()) out.push_back(std::move(n));
    return out;
  }

  std::vector<std::string> finish() override {
    session_->restore();
    return session_->restore_errors();
  }

 private:
  // Each slot's row with what never changes (its names, scale, unit): a read fills in the counts.
  void name_rows() {
    rows_.clear();
    for (const auto& s : slots_) {
      Row r;
      r.spec = s.bound.spec;
      r.event = s.bound.encoded.name;
      r.pmu = s.bound.unit->name;
      r.socket = s.bound.unit->socket;
      r.cpu = own_cpu(*s.bound.unit);  // AMD's L3s: a unit per CCX under one PMU name
      r.scale = s.bound.encoded.scale;
      r.unit = s.bound.encoded.unit;
      r.backend = "direct";
      rows_.push_back(r);
    }
  }

  // Each slot's counts over the window into its row, rows[i] for slot i (its names already there),
  // from the session's last sample.
  void counts_of(std::uint64_t window_ns, Row* rows) {
    for (std::size_t i = 0; i < picks_.size(); ++i) {
      const Pick& p = picks_[i];
      Row& r = rows[i];
      r.enabled_ns = window_ns;
      r.raw = r.running_ns = r.count = 0;
      r.lost = false;
      if (p.value) {
        const pmu::CounterValue& v = *p.value;
        r.raw = p.hardware_units ? v.hardware_delta : v.delta;
        r.running_ns = window_ns;
        r.lost = v.lost;
        // On the counters the whole window: scale_row's count is the raw one (none in no time).
        r.count = window_ns ? r.raw : 0;
      }
    }
  }

  // Where each slot's count is in a sample: its unit's value for its place in the set on the
  // counters (kept while no unit is programmed again: pick() follows every rotation).
  void pick() {
    picks_.clear();
    const auto& values = session_->values();
    for (const auto& s : slots_) {
      const int at = units_[s.work].position[s.event];
      picks_.push_back({at < 0 ? nullptr : &values[s.work][static_cast<std::size_t>(at)], s.hardware_units});
    }
  }

  // The window went to the sets that were on during it; the next set goes on when its turn is due.
  void rotate_if_due() {
    if (counting_ && multiplexed_) {
      const std::uint64_t now = clock_.now_ns();
      if (now - last_rotation_ >= mux_ns_) rotate(now);
    }
  }

  // One note per shape (events, sets) of the multiplexed units, naming them (a name once: one
  // kernel PMU name covers a box on every socket).
  std::vector<std::string> multiplex_notes() const {
    std::map<std::pair<std::size_t, std::size_t>, std::pair<std::size_t, std::set<std::string>>> shapes;
    for (const auto& w : units_)
      if (w.plan.multiplexed()) {
        auto& [count, names] = shapes[{w.events.size(), w.plan.sets.size()}];
        ++count, names.insert(w.unit->name);
      }
    std::vector<std::string> out;
    for (const auto& [shape, units] : shapes)
      out.push_back(fmt::format("multiplexed: {} unit{} ({}), {} events in {} sets each, the next set every {} ms",
                                units.first, units.first == 1 ? "" : "s", fmt::join(units.second, ", "), shape.first,
                                shape.second, static_cast<double>(mux_ns_) / 1e6));
    return out;
  }

  // Every multiplexed unit's next set on its counters (its saved registers and mappings stay).
  void rotate(std::uint64_t now) {
    for (std::size_t u = 0; u < units_.size(); ++u) {
      auto& w = units_[u];
      if (!w.plan.multiplexed()) continue;
      w.on = (w.on + 1) % w.plan.sets.size();
      session_->turn(u, w.on);
      place(w);
    }
    pick();
    last_rotation_ = now;
  }

  Clock& clock_;
  std::uint64_t mux_ns_;
  std::vector<UnitWork> units_;
  std::vector<Slot> slots_;
  struct Pick {
    const pmu::CounterValue* value;  // nullptr: the slot's event is off the counters
    bool hardware_units;
  };
  std::vector<Pick> picks_;  // per slot, for the set each unit has on
  std::vector<Row> rows_;    // one per slot, in slot order, with its names: what a read appends
  std::unique_ptr<pmu::DirectSession> session_;
  bool multiplexed_ = false, counting_ = false;
  std::uint64_t last_rotation_ = 0;
};

}  // namespace

std::vector<int> groups_of(const std::vector<syntax::EventSpec>& specs, const std::vector<std::size_t>& spec_of) {
  std::vector<int> group;
  group.reserve(spec_of.size());
  for (auto s : spec_of) group.push_back(specs.at(s).group);
  return group;
}

DirectWork work_by_unit(const std::vector<syntax::EventSpec>& specs, const std::vector<events::BoundEvent>& bound) {
  DirectWork out;
  std::map<const discovery::PmuUnit*, std::size_t> index;
  for (const auto& b : bound) {
    auto [it, fresh] = index.emplace(b.unit, out.units.size());
    if (fresh) out.units.push_back(UnitWork{b.unit, {}, {}, {}, false, 0, {}});
    auto& w = out.units[it->second];
    w.events.push_back(b.encoded);
    w.spec_of.push_back(b.spec);
    // Named through another kernel's alias: counted in that kernel's units (see UnitAlias).
    const auto* alias = b.unit->alias(specs.at(b.spec).pmu);
    out.slots.push_back({it->second, w.events.size() - 1, b, alias && alias->hardware_units});
  }
  return out;
}

void plan_unit(pmu::Preflight& preflight, const std::vector<syntax::EventSpec>& specs, UnitWork& w) {
  const auto groups = groups_of(specs, w.spec_of);
  pmu::inherit_group_filters(preflight, *w.unit, w.events, groups);
  w.plan = pmu::plan_rotation(preflight, *w.unit, w.events, groups);
  w.planned = true;
}

std::unique_ptr<Backend> make_direct_backend(std::unique_ptr<pmu::Preflight> preflight,
                                             const std::vector<syntax::EventSpec>& specs, DirectWork work, bool force,
                                             const sim::MachineClock& time, std::uint64_t mux_interval_ns) {
  return std::make_unique<DirectBackend>(std::move(preflight), specs, std::move(work), force, time, mux_interval_ns);
}

}  // namespace pmukit::counting
