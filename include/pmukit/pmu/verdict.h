// pmukit -- whether a unit can be counted directly here, as types: what the preflight finds once per
// unit and what backend choice and the session decide on, without reading any message text.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "pmukit/pmu/register_io.h"

namespace pmukit::pmu {

struct Ok {};
// Nothing in pmukit can program it here (its regions are not visible, no CPU reaches its MSRs).
struct NoDriver {
  std::string why;  // names the unit
};
// Its registers cannot be mapped, read or written.
struct NoAccess {
  std::string why;  // names the file or address and the reason
  int err = 0;      // errno of the failed system call; 0 when none failed
};
// Another agent (a kernel driver, another tool) is counting on it.
struct Busy {
  Reg reg;                  // the register that says so
  std::uint64_t value = 0;  // what it holds
  std::string what;         // "counter control MSR 0x2012 (CPU 0) is 0x400001"
};
// The events cannot be counted together on its counters (no hardware is read to know it).
struct DoesNotFit {
  std::string reason;  // names the unit: "uncore_imc_0: 5 events but the box has 4 counters"
  std::string detail;  // what follows, "" or "count them in separate runs, or use --backend perf, ..."
  // A rule the Linux driver of the unit enforces too (it names the driver function): no backend
  // counts these events, so pmu-raw stops with the rule rather than trying perf.
  bool kernel_rule = false;
  // Only the number of counters is short (more events than counters, or than the one cycle or
  // time-based counter): counted in turn on the counters, the events fit (pmu/multiplex.h).
  bool counters_short = false;
  std::string message() const { return detail.empty() ? reason : reason + "; " + detail; }
};

using Verdict = std::variant<Ok, NoDriver, NoAccess, Busy, DoesNotFit>;

inline bool ok(const Verdict& v) {
  return std::holds_alternative<Ok>(v);
}
// The verdict in one phrase, naming the unit: "uncore_cha_1: in use: counter control ... is 0x1".
std::string describe(const Verdict& v, const std::string& unit_name);

}  // namespace pmukit::pmu
