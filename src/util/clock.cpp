// pmukit -- CLOCK_MONOTONIC, nanosleep and the interrupt flag.
#include "pmukit/util/clock.h"

#include <time.h>

#include <algorithm>

namespace pmukit {

std::atomic<bool> g_interrupted{false};

std::uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

void nap_ns(std::uint64_t ns) {
  timespec ts{static_cast<time_t>(ns / 1'000'000'000ull), static_cast<long>(ns % 1'000'000'000ull)};
  ::nanosleep(&ts, nullptr);
}

void Clock::wait_until(std::uint64_t t, std::uint64_t max_real_ns) {
  const std::uint64_t now = now_ns();
  if (now < t) nap_ns(std::min(t - now, max_real_ns));
}

namespace {

class RealClock : public Clock {
 public:
  std::uint64_t now_ns() override { return monotonic_ns(); }
  bool sleep_until(std::uint64_t t) override {
    for (std::uint64_t now = monotonic_ns(); now < t; now = monotonic_ns()) {
      if (g_interrupted.load()) return false;
      nap_ns(std::min<std::uint64_t>(t - now, 50'000'000ull));  // wake every 50 ms to see a signal
    }
    return !g_interrupted.load();
  }
  const char* describe() const override { return "real time"; }
};

}  // namespace

std::unique_ptr<Clock> real_clock() {
  return std::make_unique<RealClock>();
}

}  // namespace pmukit
