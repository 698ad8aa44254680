// pmukit -- the register maps of the Tegra410 PMU blocks outside CoreSight (Linux
// nvidia_t410_c2c_pmu.c, nvidia_t410_cmem_latency_pmu.c): per-instance byte offsets. Every
// instance has the same layout; a write to the broadcast region reaches all instances at once.
// Which of these registers an interface has is platform data (platforms/nvidia/t410_blocks.json
// lists them by name); where they are is declared here, once.
#pragma once

#include <cstdint>
#include <string_view>

#include "pmukit/util/bits.h"

namespace pmukit::regs::t410 {

struct NamedRegister {
  std::string_view name;
  std::uint32_t offset;
};

// ---- NVLink-C2C, NV-CLink, NV-DLink: 32-bit controls; 64-bit counters read hi-lo-hi ----
struct C2cCtrl : Register<C2cCtrl, 0x864, 32> {};  // broadcast: 1 enables every instance, 0 disables
struct C2cInStatus : Register<C2cInStatus, 0x868, 32> {};
struct C2cOutStatus : Register<C2cOutStatus, 0x890, 32> {};
constexpr std::uint64_t kC2cEnable = 1, kC2cDisable = 0;  // C2cCtrl values
// Counter register per event number (perf config:0-3, nv_c2c_ctr_offset): cycles, in_rd_cum_outs,
// in_rd_req, in_wr_cum_outs, in_wr_req, out_rd_cum_outs, out_rd_req, out_wr_cum_outs, out_wr_req.
constexpr std::uint32_t kC2cCounters[] = {0x86c, 0x874, 0x87c, 0x884, 0x88c, 0x898, 0x8a0, 0x8a8, 0x8b0};
constexpr unsigned kC2cCycles = 0;
constexpr NamedRegister kC2cRegisters[] = {
    {"CTRL", C2cCtrl::offset},           {"IN_STATUS", C2cInStatus::offset},   {"CYCLE_CNTR", kC2cCounters[0]},
    {"IN_RD_CUM_OUTS", kC2cCounters[1]}, {"IN_RD_REQ", kC2cCounters[2]},       {"IN_WR_CUM_OUTS", kC2cCounters[3]},
    {"IN_WR_REQ", kC2cCounters[4]},      {"OUT_STATUS", C2cOutStatus::offset}, {"OUT_RD_CUM_OUTS", kC2cCounters[5]},
    {"OUT_RD_REQ", kC2cCounters[6]},     {"OUT_WR_CUM_OUTS", kC2cCounters[7]}, {"OUT_WR_REQ", kC2cCounters[8]},
};

// ---- CMEM latency: every register 64-bit (readq/writeq) ----
struct CmemCgCtrl : Register<CmemCgCtrl, 0x800, 64> {};  // clock gate
struct CmemCtrl : Register<CmemCtrl, 0x808, 64> {};
struct CmemStatus : Register<CmemStatus, 0x810, 64> {};
struct CmemCycleCntr : Register<CmemCycleCntr, 0x818, 64> {};
constexpr std::uint64_t kCmemClockOn = 1, kCmemClockOff = 0;                // CmemCgCtrl values (CMEM_LAT_CG_CTRL_*)
constexpr std::uint64_t kCmemDisable = 0, kCmemEnable = 1, kCmemClear = 2;  // CmemCtrl values (CMEM_LAT_CTRL_*)
// Per memory controller: read requests and accumulated outstanding requests (AOR).
constexpr std::uint32_t kCmemReq[] = {0x820, 0x838, 0x850};
constexpr std::uint32_t kCmemAor[] = {0x830, 0x848, 0x860};
// perf events (config:0-1): cycles 0, rd_req 1 (sum of MCx_REQ), rd_cum_outs 2 (sum of MCx_AOR).
constexpr unsigned kCmemCycles = 0, kCmemRdReq = 1, kCmemRdCumOuts = 2;
constexpr NamedRegister kCmemRegisters[] = {
    {"CG_CTRL", CmemCgCtrl::offset}, {"CTRL", CmemCtrl::offset},
    {"STATUS", CmemStatus::offset},  {"CYCLE_CNTR", CmemCycleCntr::offset},
    {"MC0_REQ", kCmemReq[0]},        {"MC0_AOR", kCmemAor[0]},
    {"MC1_REQ", kCmemReq[1]},        {"MC1_AOR", kCmemAor[1]},
    {"MC2_REQ", kCmemReq[2]},        {"MC2_AOR", kCmemAor[2]},
};

}  // namespace pmukit::regs::t410
