// pmukit -- no two discovered units may claim one register, whatever their families.
//
// Each family says where its registers are (its footprint: address ranges in an address space --
// MSRs through a CPU, physical memory, one function's config space), and one pass over every
// unit's footprint finds the units that share a register: an APMT that lists two CoreSight nodes
// on one page, an Intel table that places a box on another's block, a Tegra410 block or a CMN
// region on a CoreSight page. Each pair is one warning naming both units and the first shared
// register, a note on each, and each unit's `shares_registers_with` names the other: the
// programming layer never programs both in one run, and the simulator never steps a block twice.
//
// Each family says where its registers are in Family::footprint (footprint.h), a pure virtual: a new
// family does not build until it says.
#pragma once

#include <cstddef>

namespace pmukit::discovery {

struct Inventory;

// Returns the number of pairs found.
std::size_t warn_overlapping_units(Inventory& inventory);

}  // namespace pmukit::discovery
