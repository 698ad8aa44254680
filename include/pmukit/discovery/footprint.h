// pmukit -- where a unit's registers are: the address ranges a family reports for each of its
// units (Family::footprint), in the address space each range is reached through. One pass over
// every unit's footprint (unit_overlap.h) finds the units that share a register, whatever their
// families.
#pragma once

#include <cstdint>

#include "pmukit/access/bdf.h"

namespace pmukit::discovery {

class Footprint {
 public:
  virtual ~Footprint() = default;
  // `count` MSRs from `first`, reached through `cpu` (uncore MSRs are per package: the units of
  // one package share a CPU).
  virtual void msr(int cpu, std::uint64_t first, std::uint64_t count) = 0;
  // `bytes` of physical memory from `first`.
  virtual void mmio(std::uint64_t first, std::uint64_t bytes) = 0;
  // `bytes` of `function`'s config space from offset `first`; a null function is one discovery
  // could not name (all such ranges are one space).
  virtual void config(const Bdf* function, std::uint64_t first, std::uint64_t bytes) = 0;
};

}  // namespace pmukit::discovery
