// pmukit -- rows summed per event and socket or unit.
#include "pmukit/counting/row_groups.h"

#include <algorithm>
#include <map>

namespace pmukit::counting {

namespace {

// A backend names a row's PMU from the same storage every interval: equal pointers are the
// usual answer, the text compared only where they differ.
bool same_placement(const Placement& a, const Placement& b) {
  if (a.socket != b.socket || a.die != b.die || a.node != b.node || a.cpu != b.cpu || a.pmu.size() != b.pmu.size())
    return false;
  return a.pmu.data() == b.pmu.data() || a.pmu == b.pmu;
}

}  // namespace

Placement RowGroups::placement(const Row& r) const {
  if (r.socket < 0) return {};  // machine-wide rows (duration_time) belong to no socket or box
  switch (grouping_) {
  case Grouping::Merged:
    return {};
  case Grouping::PerSocket:
    return {r.socket, -1, -1, {}};
  case Grouping::PerBox:
    return {-1, -1, -1, r.pmu};
  case Grouping::PerCpu:
    if (r.cpu >= 0) return {-1, -1, -1, {}, r.cpu};
    [[fallthrough]];
  case Grouping::PerDie:
  case Grouping::PerNode: {
    auto socket = places_.find(r.socket);
    if (socket == places_.end()) return {};
    auto it = socket->second.find(r.pmu);
    if (it == socket->second.end()) return {};
    const PmuPlace& p = it->second;
    if (grouping_ == Grouping::PerCpu) return p.cpu >= 0 ? Placement{-1, -1, -1, {}, p.cpu} : Placement{};
    if (grouping_ == Grouping::PerNode) return p.node >= 0 ? Placement{-1, -1, p.node, {}} : Placement{};
    return p.socket >= 0 ? Placement{p.socket, p.die, -1, {}} : Placement{};
  }
  }
  return {};
}

// The rows planned for, unchanged: usually field for field what was planned (the same event, socket
// and PMU name storage), checked without working out their keys; else each row's key.
bool RowGroups::plan_matches(const std::vector<Row>& rows) const {
  if (rows.size() != keys_.size() || rows_.size() != rows.size()) return false;
  std::size_t i = 0;
  for (; i < rows.size(); ++i) {
    const PlannedRow& p = rows_[i];
    const Row& r = rows[i];
    if (p.spec != r.spec || p.socket != r.socket || p.cpu != r.cpu || p.pmu != r.pmu.data() ||
        p.pmu_size != r.pmu.size())
      break;
  }
  for (; i < rows.size(); ++i)
    if (keys_[i].first != rows[i].spec || !same_placement(keys_[i].second, placement(rows[i]))) return false;
  return true;
}

void RowGroups::plan(const std::vector<Row>& rows) {
  keys_.clear();
  rows_.clear();
  std::map<std::pair<std::size_t, Placement>, std::size_t> position;
  for (const auto& r : rows) {
    rows_.push_back({r.spec, r.socket, r.cpu, r.pmu.data(), r.pmu.size()});
    keys_.emplace_back(r.spec, placement(r));
    position.emplace(keys_.back(), 0);
  }
  std::size_t n = 0;
  for (auto& [key, at] : position) at = n++;
  outputs_ = n;
  slot_.clear();
  for (const auto& key : keys_) slot_.push_back(position.at(key));
  first_.assign(n, rows.size());
  single_.assign(n, true);
  members_.assign(n, 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    members_[slot_[i]] += rows[i].units;
    std::size_t& first = first_[slot_[i]];
    if (first != rows.size()) single_[slot_[i]] = false;
    first = std::min(first, i);
  }
  all_single_ = n == rows.size();
}

// A line of one row shows that row; a line of several shows their sum, made in a reused vector.
const std::vector<const Row*>& RowGroups::aggregate(const std::vector<Row>& rows, bool as_before) {
  replanned_ = !(as_before && rows.size() == rows_.size() && rows.size() == keys_.size()) && !plan_matches(rows);
  if (replanned_) plan(rows);
  shown_.resize(outputs_);
  merged_.resize(outputs_);
  if (all_single_) {  // --per-box, or one unit an event: every line shows its own row
    // The same rows where they were: the pointers are the last call's (nothing to write or read).
    if (!replanned_ && rows.data() == shown_of_) return shown_;
    for (std::size_t i = 0; i < rows.size(); ++i) shown_[slot_[i]] = &rows[i];
    shown_of_ = rows.data();
    return shown_;
  }
  shown_of_ = nullptr;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const std::size_t slot = slot_[i];
    if (first_[slot] == i) {
      if (single_[slot]) {
        shown_[slot] = &r;
        continue;
      }
      merged_[slot] = r;
      shown_[slot] = &merged_[slot];
      continue;
    }
    Row& a = merged_[slot];
    a.count += r.count;
    a.raw += r.raw;
    a.lost = a.lost || r.lost;
    // As perf stat merges the counts of one event on several PMUs (stat-display.c, uncore aliases):
    // the scaled counts, the enabled times and the running times are each summed.
    a.enabled_ns += r.enabled_ns;
    a.running_ns += r.running_ns;
  }
  return shown_;
}

}  // namespace pmukit::counting
