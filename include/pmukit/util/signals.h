// pmukit -- the signals that end a counting run: what a program that counts installs so that a
// ReadLoop ends (and restores every register) on Ctrl-C or a SIGTERM (g_interrupted, util/clock.h).
#pragma once

#include <initializer_list>

namespace pmukit {

// Ends a counting run (and every wait) on `signals`: their handler sets g_interrupted, records the
// first of them (ending_signal()) and calls `also(sig)`, which must be async-signal-safe
// (counting::forward_to_workload). Installed without SA_RESTART, so a blocked wait returns EINTR
// and sees the flag.
void interrupt_on(std::initializer_list<int> signals, void (*also)(int) = nullptr);
// The first signal that came to interrupt_on's handler, 0 before any.
int ending_signal();

}  // namespace pmukit
