// pmukit -- Intel IIO stack mapping registers: the bit layouts of the config-space registers that
// say which PCI root bus each IIO stack owns, on which socket, and which die chop a part is.
// Where each register lives (device id, device/function, offset) differs by model and is platform
// data (platforms/intel/iio_*.json); only the layouts, which do not, are here.
#pragma once

#include <cstdint>

#include "pmukit/util/bits.h"

namespace pmukit::regs::intel_iio {

// CPUBUSNO: one root-bus byte per stack entry, four entries per dword (SKX UBOX CPUBUSNO and
// CPUBUSNO1; SPR/GNR MSM CPUBUSNO0-7). Entry i of a dword is bits [8(i%4)+7 : 8(i%4)].
// PCM pcm-iio-topology.cpp PurleyPlatformMapping::pciTreeDiscover (SKX_BUS_NUM_STRIDE 8) and
// EagleStreamPlatformMapping::getRootBuses ((cpuBusNo[id / 4] >> ((id % 4) * 8)) & 0xff);
// Linux skx_iio_topology_cb (BUS_NUM_STRIDE 8).
// Every register here is a config dword whose place is platform data: a Word, not a Register.
struct CpuBusNo : Word<CpuBusNo, 32> {};
constexpr unsigned kCpuBusNoEntriesPerDword = 4;
constexpr std::uint8_t cpubusno_entry(RegValue<CpuBusNo> dword, unsigned entry) {
  return static_cast<std::uint8_t>(
      bits(dword.raw, 8 * (entry % kCpuBusNoEntriesPerDword) + 7, 8 * (entry % kCpuBusNoEntriesPerDword)));
}

// CPUBUSNO_VALID (SPR/GNR MSM): bit i set when entry i is in use (PCM getRootBuses).
struct CpuBusNoValid : Word<CpuBusNoValid, 32> {};
constexpr bool cpubusno_valid(RegValue<CpuBusNoValid> valid, unsigned entry) {
  return entry < 32 && ((valid.raw >> entry) & 1u) != 0;
}

// SAD_CONTROL_CFG: the stack's socket (node id) and its stack id in SAD notation.
// Linux SAD_CONTROL_STACK_ID(data) (((data) >> 4) & 0x7); PCM getSadIdRootBusMap
// ((sad_ctrl_cfg & 0xf) == socket_id, sid = (sad_ctrl_cfg >> 4) & 0x7) and get_cpu_bus
// (cpuPackageId = sadControlCfg & 0xf).
struct SadControlCfg : Word<SadControlCfg, 32> {
  using Socket = Field<SadControlCfg, 3, 0>;
  using StackId = Field<SadControlCfg, 6, 4>;
};
static_assert(disjoint<SadControlCfg::Socket, SadControlCfg::StackId>());

// CAPID4 of the PCU: the physical die chop (PCM SPR_CAPID4_GET_PHYSICAL_CHOP: (capid4 >> 6) & 3,
// 0b11 XCC, 0b01 MCC; Linux hswep_get_chop: ((cap) >> 6) & 0x3).
struct Capid4 : Word<Capid4, 32> {
  using PhysicalChop = Field<Capid4, 7, 6>;
};

// UBOX CPUNODEID and GIDNIDMAP: the local node id, and the node id of each of 8 sockets in
// 3-bit groups. Linux NODE_ID_MASK 0x7, GIDNIDMAP(config, id) (((config) >> (3 * (id))) & 0x7),
// topology_gidnid_map / snbep_pci2phy_map_init.
struct CpuNodeId : Word<CpuNodeId, 32> {
  using Local = Field<CpuNodeId, 2, 0>;
};
struct GidNidMap : Word<GidNidMap, 32> {};
constexpr unsigned kGidNidMapSockets = 8;
constexpr unsigned gidnidmap_node(RegValue<GidNidMap> map, unsigned socket) {
  return static_cast<unsigned>(bits(map.raw, 3 * socket + 2, 3 * socket));
}

// A config read of all ones means the register or device is not there (PCM checks every
// mapping register read against 0xffffffff).
constexpr std::uint32_t kAbsent = 0xffffffffu;

}  // namespace pmukit::regs::intel_iio
