// pmukit -- Tegra410 PMU blocks outside CoreSight (Linux nvidia_t410_c2c_pmu.c,
// nvidia_t410_cmem_latency_pmu.c): per-instance register offsets. Every instance has the same
// layout; writing the broadcast region's control reaches all instances at once.
#pragma once

#include <cstdint>

namespace pmukit::pmu::t410 {

// NVLink-C2C, NV-CLink, NV-DLink. Counters are 64-bit, read hi-lo-hi with 32-bit accesses.
constexpr std::uint32_t C2C_CTRL = 0x864;  // broadcast: 1 enables every instance, 0 disables
constexpr std::uint32_t C2C_IN_STATUS = 0x868;
constexpr std::uint32_t C2C_OUT_STATUS = 0x890;
// Counter register per event number (perf config:0-3): cycles, in_rd_cum_outs, in_rd_req,
// in_wr_cum_outs, in_wr_req, out_rd_cum_outs, out_rd_req, out_wr_cum_outs, out_wr_req.
constexpr std::uint32_t kC2cCounters[] = {0x86c, 0x874, 0x87c, 0x884, 0x88c, 0x898, 0x8a0, 0x8a8, 0x8b0};
constexpr unsigned kC2cCycles = 0;

// CMEM latency. All registers are 64-bit (readq/writeq).
constexpr std::uint32_t CMEM_CG_CTRL = 0x800;  // 1: clock on, 0: off
constexpr std::uint32_t CMEM_CTRL = 0x808;     // 0: disable, 1: enable, 2: clear
constexpr std::uint32_t CMEM_STATUS = 0x810;
constexpr std::uint32_t CMEM_CYCLE_CNTR = 0x818;
// Per memory controller: read requests and accumulated outstanding requests (AOR).
constexpr std::uint32_t kCmemReq[] = {0x820, 0x838, 0x850};
constexpr std::uint32_t kCmemAor[] = {0x830, 0x848, 0x860};
// perf events (config:0-1): cycles 0, rd_req 1 (sum of MCx_REQ), rd_cum_outs 2 (sum of MCx_AOR).
constexpr unsigned kCmemCycles = 0, kCmemRdReq = 1, kCmemRdCumOuts = 2;

}  // namespace pmukit::pmu::t410
