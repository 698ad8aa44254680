// pmukit tools -- the composite backend: every call goes to each part in turn.
#include "common/composite_backend.h"

#include <algorithm>

namespace pmukit::tools {

void CompositeBackend::start() {
  for (auto& p : parts_) p->start();
}

void CompositeBackend::stop() {
  for (auto& p : parts_) p->stop();
}

std::vector<Row> CompositeBackend::read(std::uint64_t window_ns) {
  std::vector<Row> rows;
  for (auto& p : parts_) {
    auto r = p->read(window_ns);
    rows.insert(rows.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return rows;
}

std::uint64_t CompositeBackend::max_read_period_ns() const {
  std::uint64_t period = UINT64_MAX;
  for (const auto& p : parts_) period = std::min(period, p->max_read_period_ns());
  return period;
}

std::vector<std::string> CompositeBackend::notes() const {
  auto all = notes_;
  for (const auto& p : parts_)
    for (auto& n : p->notes()) all.push_back(std::move(n));
  return all;
}

std::vector<std::string> CompositeBackend::finish() {
  std::vector<std::string> errors;
  for (auto& p : parts_)
    for (auto& e : p->finish()) errors.push_back(std::move(e));
  return errors;
}

}  // namespace pmukit::tools
