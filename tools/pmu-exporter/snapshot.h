// pmu-exporter -- what one read of the counters publishes (counting::SeriesSnapshot), and the
// board scrapes read it from.
//
// The counting thread builds a whole Snapshot, then swaps it in under a short lock; a scrape takes
// the latest under the same lock and renders it without holding anything, so any number of
// concurrent scrapes never delay a read of the counters (and a slow scraper delays no one).
#pragma once

#include <memory>
#include <mutex>

#include "pmukit/counting/series.h"

namespace pmukit::exporter {

using Snapshot = counting::SeriesSnapshot;

class SnapshotBoard {
 public:
  void publish(std::shared_ptr<const Snapshot> s) {
    std::lock_guard<std::mutex> lock(mutex_);
    latest_ = std::move(s);
  }
  std::shared_ptr<const Snapshot> latest() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return latest_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> latest_ = std::make_shared<Snapshot>();
};

}  // namespace pmukit::exporter
