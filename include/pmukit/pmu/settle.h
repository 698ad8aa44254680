// pmukit -- the settle point between the phases of a direct session.
//
// A driver's writes in one phase have side effects the next phase relies on: a box reset clears
// its counters, PMCR.P zeroes them, a lane counter clears when asked. Hardware applies them at
// once, so on a real machine there is nothing to wait for (no Settle is given). A simulator that
// watches registers between its steps must have seen them first: it implements Settle, and the
// session calls settle() once between two phases, for all units together -- never per register,
// except after each write to a command register (WriteGuard::commands: DesignWare EVENT_CNT_CTL
// acts on the one lane event each write selects), which a model must see one by one.
#pragma once

namespace pmukit::pmu {

class Settle {
 public:
  virtual ~Settle() = default;
  // Returns when every write made so far has taken effect.
  virtual void settle() = 0;
};

}  // namespace pmukit::pmu
