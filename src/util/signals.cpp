// pmukit -- the signals that end a counting run.
#include "pmukit/util/signals.h"

#include <signal.h>

#include <atomic>

#include "pmukit/util/clock.h"

namespace pmukit {

namespace {

std::atomic<int> g_ending_signal{0};
std::atomic<void (*)(int)> g_also{nullptr};

void on_interrupt(int sig) {
  int none = 0;
  g_ending_signal.compare_exchange_strong(none, sig);
  g_interrupted.store(true);
  if (auto also = g_also.load()) also(sig);
}

}  // namespace

void interrupt_on(std::initializer_list<int> signals, void (*also)(int)) {
  g_also.store(also);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;  // no SA_RESTART: a blocked wait returns EINTR and sees the flag
  for (int s : signals) ::sigaction(s, &sa, nullptr);
}

int ending_signal() {
  return g_ending_signal.load();
}

}  // namespace pmukit
