// pmukit tools -- direct register programming through pmukit::pmu::DirectSession.
#include "common/direct_backend.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "pmukit/pmu/session.h"

namespace pmukit::tools {

namespace {

class DirectBackend : public Backend {
 public:
  DirectBackend(std::unique_ptr<pmu::Preflight> preflight, const std::vector<syntax::EventSpec>& specs,
                const std::vector<events::BoundEvent>& bound, bool force, const sim::MachineClock& time)
      : clock_(*time.clock) {
    // One work item per unit, its events in -e order.
    std::map<const discovery::PmuUnit*, std::size_t> index;
    std::vector<pmu::UnitEvents> work;
    for (const auto& b : bound) {
      auto [it, fresh] = index.emplace(b.unit, work.size());
      if (fresh) work.push_back({b.unit, {}});
      work[it->second].events.push_back(b.encoded);
      // Named through another kernel's alias: counted in that kernel's units (see UnitAlias).
      const auto* alias = b.unit->alias(specs.at(b.spec).pmu);
      slots_.push_back({it->second, work[it->second].events.size() - 1, b, alias && alias->hardware_units});
    }
    pmu::SessionOptions opts;
    opts.force = force;
    opts.settle = time.settle;
    session_ = std::make_unique<pmu::DirectSession>(std::move(preflight), std::move(work), opts);
  }

  void start() override { session_->start(); }
  void stop() override { session_->stop(); }

  std::vector<Row> read(std::uint64_t window_ns) override {
    const auto& values = session_->sample();
    std::vector<Row> rows;
    rows.reserve(slots_.size());
    for (const auto& s : slots_) {
      const auto& v = values[s.work][s.event];
      Row r;
      r.spec = s.bound.spec;
      r.event = s.bound.encoded.name;
      r.pmu = s.bound.unit->name;
      r.socket = s.bound.unit->socket;
      r.count = s.hardware_units ? v.hardware_delta : v.delta;
      r.scale = s.bound.encoded.scale;
      r.unit = s.bound.encoded.unit;
      r.enabled_ns = r.running_ns = window_ns;  // direct counters never multiplex
      r.lost = v.lost;
      r.backend = "direct";
      rows.push_back(std::move(r));
    }
    return rows;
  }

  std::uint64_t max_read_period_ns() const override { return session_->max_read_period_ns(); }

  std::vector<std::string> notes() const override {
    // Units, not names: one kernel PMU name covers a box on every socket.
    std::map<std::string, std::set<const discovery::PmuUnit*>> by_family;
    for (const auto& s : slots_)
      by_family[std::string(discovery::family_name(s.bound.unit->family))].insert(s.bound.unit);
    std::vector<std::string> out;
    for (const auto& [family, names] : by_family)
      out.push_back(fmt::format("direct register access ({}, {} unit{}; {})", family, names.size(),
                                names.size() == 1 ? "" : "s", clock_.describe()));
    return out;
  }

  std::vector<std::string> finish() override {
    session_->restore();
    return session_->restore_errors();
  }

 private:
  struct Slot {
    std::size_t work, event;
    events::BoundEvent bound;
    bool hardware_units = false;
  };
  const Clock& clock_;
  std::vector<Slot> slots_;
  std::unique_ptr<pmu::DirectSession> session_;
};

}  // namespace

std::unique_ptr<Backend> make_direct_backend(std::unique_ptr<pmu::Preflight> preflight,
                                             const std::vector<syntax::EventSpec>& specs,
                                             const std::vector<events::BoundEvent>& bound, bool force,
                                             const sim::MachineClock& time) {
  return std::make_unique<DirectBackend>(std::move(preflight), specs, bound, force, time);
}

}  // namespace pmukit::tools
