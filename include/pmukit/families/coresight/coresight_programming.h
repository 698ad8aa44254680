// pmukit -- how a CoreSight PMU kind turns (config, config1, config2) into register values: the
// arm_cspmu impl_ops (event_type, set_ev_filter, set_cc_filter) as data.
//
// A register value is assembled from pieces, each taking bits of one config word and placing them
// at a bit position; a piece that comes out 0 may take a default (Tegra410 UCF: "a zero subfield
// means all bits"), and so may the whole register (NVIDIA: "a filter value of 0 means the default").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace pmukit::platform {

struct ConfigBits {
  int config = 0;  // 0 config, 1 config1, 2 config2
  unsigned lo = 0, hi = 63;
  std::uint64_t take(const std::uint64_t cfg[3]) const;
  // These bits of `from` written over the same bits of `to` (config, config1 or config2).
  void copy(const std::uint64_t from[3], std::uint64_t to[3]) const;
};

struct RegisterPiece {
  ConfigBits from;
  unsigned to = 0;                             // destination bit of `from.lo`
  std::optional<std::uint64_t> default_value;  // used when the piece is 0
};

struct RegisterAssembly {
  std::vector<RegisterPiece> pieces;           // empty: the register is written 0
  std::optional<std::uint64_t> default_value;  // used when the assembled value is 0
  std::uint64_t assemble(const std::uint64_t cfg[3]) const;
};

struct AuxRegister {
  std::uint32_t offset = 0;  // page 0 offset (Ampere PMAUXR0-3 at 0xD80..)
  RegisterAssembly value;
};

// Tegra410 PCIE (Linux nvidia_cspmu.c pcie_v2_pmu_validate_event): a root-port mask and a BDF
// filter exclude each other, and one RC's counters share one BDF filter. A {...} group member that
// sets none of these fields takes its leader's filter when the leader filters by BDF
// (pcie_v2_pmu_event_filter).
struct OneBdfFilter {
  ConfigBits rp_mask, bdf, enable;
};

struct CoreSightProgramming {
  std::optional<ConfigBits> cycles_bit;  // set: the event is the cycle counter (arm_cspmu: config:32)
  // With cycles_bit: the value of those bits that selects the cycle counter (0: any non-zero value).
  // Tegra410 PCIE-TGT: event config[2:0] == 4 (pcie_tgt_pmu_is_cycle_counter_event).
  std::uint64_t cycles_equals = 0;
  std::optional<OneBdfFilter> one_bdf_filter;
  RegisterAssembly pmevtyper;
  RegisterAssembly pmevfiltr;
  RegisterAssembly pmevfilt2r;
  RegisterAssembly pmccfiltr;
  std::vector<AuxRegister> aux;  // shared by all counters: events must agree on them
  struct Unsupported {
    ConfigBits bits;
    std::string why;     // what the direct driver cannot do
    std::string advice;  // what to do instead ("count it with --backend perf")
  };
  std::vector<Unsupported> unsupported;  // config bits the direct driver cannot program

  // arm_cspmu's defaults: PMEVTYPER = config[31:0], cycles = config[32], PMEVFILTR and PMCCFILTR =
  // config1[31:0], PMEVFILT2R = config2[31:0].
  static CoreSightProgramming arm_default();
  static CoreSightProgramming from_json(const nlohmann::json& j, const std::string& where);
};

}  // namespace pmukit::platform
