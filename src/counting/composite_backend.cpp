// pmukit -- the composite backend: every call goes to each part in turn.
#include "composite_backend.h"

#include <algorithm>

namespace pmukit::counting {

void CompositeBackend::start() {
  for (auto& p : parts_) p->start();
}

void CompositeBackend::stop() {
  for (auto& p : parts_) p->stop();
}

// Each part appends to the caller's vector: one vector for the run, no copy of any part's rows.
void CompositeBackend::read(std::uint64_t window_ns, std::vector<Row>& into) {
  for (auto& p : parts_) p->read(window_ns, into);
}

bool CompositeBackend::rereads() const {
  return std::all_of(parts_.begin(), parts_.end(), [](const auto& p) { return p->rereads(); });
}

void CompositeBackend::reread(std::uint64_t window_ns, std::vector<Row>& rows, std::size_t& at) {
  for (auto& p : parts_) p->reread(window_ns, rows, at);
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

std::vector<std::string> CompositeBackend::summary() const {
  std::vector<std::string> all;
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

}  // namespace pmukit::counting
