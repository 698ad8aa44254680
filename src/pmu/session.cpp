// pmukit -- direct counting sessions.
#include "pmukit/pmu/session.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/machine_lock.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

DirectSession::DirectSession(Machine& machine, std::vector<UnitEvents> work, const platform::Database& db,
                             SessionOptions options)
    : work_(std::move(work)) {
  lock_ = std::make_unique<MachineLock>(machine);
  io_ = std::make_unique<RegisterIo>(machine);
  if (options.barrier) io_->set_barrier_hook(options.barrier);
  guard_ = std::make_unique<WriteGuard>(*io_);
  // Everything that can fail without writing is done first: drivers, event checks, mappings,
  // saving every register, busy checks.
  for (const auto& w : work_) {
    drivers_.push_back(make_driver(*w.unit, db));
    drivers_.back()->check(w.events);
  }
  for (auto& d : drivers_) {
    for (const auto& [base, size] : d->mmio_blocks()) io_->map_block(base, size);
    guard_->own(d->registers());
  }
  for (auto& d : drivers_)
    if (auto why = d->busy(*guard_); why && !options.force)
      throw Error(fmt::format("{}: in use ({}); another tool or the kernel's perf driver may own it. Use --force to "
                              "take it anyway (its registers are restored afterwards), or --backend perf",
                              d->unit().name, *why));
  programmed_ = true;  // from here on, the destructor restores
  try {
    for (std::size_t i = 0; i < drivers_.size(); ++i) drivers_[i]->program(*guard_, work_[i].events);
  } catch (...) {
    restore();
    throw;
  }
  for (std::size_t i = 0; i < drivers_.size(); ++i) {
    std::vector<CounterTracker> t;
    for (std::size_t e = 0; e < work_[i].events.size(); ++e) t.emplace_back(drivers_[i]->width(e));
    trackers_.push_back(std::move(t));
  }
}

DirectSession::~DirectSession() {
  restore();
}

void DirectSession::start() {
  // Baselines first, then start every unit back to back, so all count over the same window.
  readings_.resize(drivers_.size());
  values_.resize(drivers_.size());
  for (std::size_t i = 0; i < drivers_.size(); ++i) {
    drivers_[i]->read(*guard_, readings_[i]);
    for (std::size_t e = 0; e < readings_[i].size(); ++e) trackers_[i][e].start(readings_[i][e].raw);
  }
  for (auto& d : drivers_) d->start(*guard_);
}

void DirectSession::stop() {
  for (auto& d : drivers_) d->stop(*guard_);
}

const std::vector<std::vector<CounterValue>>& DirectSession::sample() {
  for (std::size_t i = 0; i < drivers_.size(); ++i) {
    auto& readings = readings_[i];
    drivers_[i]->read(*guard_, readings);
    values_[i].resize(readings.size());
    for (std::size_t e = 0; e < readings.size(); ++e) {
      auto u = trackers_[i][e].update(readings[e].raw, readings[e].overflow);
      std::uint64_t m = drivers_[i]->multiplier(e);
      values_[i][e] = {u.delta * m, trackers_[i][e].total() * m, u.wrapped, u.lost, u.delta};
    }
  }
  return values_;
}

void DirectSession::restore() {
  if (!programmed_ || restored_) return;
  restored_ = true;
  // Restore in reverse order of programming; one unit's failure does not stop the others.
  for (std::size_t i = drivers_.size(); i-- > 0;) {
    try {
      drivers_[i]->restore(*guard_);
    } catch (const std::exception& e) {
      restore_errors_.push_back(fmt::format("{}: restore failed: {}", drivers_[i]->unit().name, e.what()));
    }
  }
}

std::uint64_t DirectSession::max_read_period_ns() const {
  std::uint64_t period = kLongestReadPeriodNs;
  for (const auto& unit : trackers_)
    for (const auto& t : unit) {
      if (t.width() >= 48) continue;
      // Half the wrap time at the fastest plausible rate; never below 1 ms (a 22-bit counter).
      std::uint64_t wrap_ns = (std::uint64_t{1} << t.width()) / kMaxCountsPerNs;
      period = std::min(period, std::max<std::uint64_t>(wrap_ns / 2, 1'000'000));
    }
  return period;
}

std::size_t DirectSession::register_writes() const {
  return guard_ ? guard_->writes() : 0;
}

}  // namespace pmukit::pmu
