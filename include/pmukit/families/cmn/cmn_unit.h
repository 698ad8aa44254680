// pmukit -- one Arm CMN mesh as discovery found it: where firmware put its configuration region,
// the part, the mesh, every node read from the node tree with the (x, y, port, device) the Linux
// arm-cmn driver decodes from its node id, and the DTMs and DTCs that count its events.
//
// Offsets are from the configuration region's base (CmnUnit::base); phys() gives the address. The
// node tree is: the root (CFG) node, whose children are the crosspoints (XPs), whose children are
// the device nodes (HN-F, RN-I, CCLA...). Each XP holds one DTM (three with multiple DTMs enabled);
// each DTC domain has one DTC node, with the domain's global counters and cycle counter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/families/cmn/cmn_regs.h"

namespace pmukit::discovery {

struct CmnNode {
  std::uint16_t type = 0;      // node_info type: 0x105 is CCLA
  std::uint16_t id = 0;        // node id: (x, y, port, device) packed as the mesh size dictates
  std::uint16_t logid = 0;     // logical id, counted from 0 per node type
  std::uint64_t offset = 0;    // the node's register block, from the region base
  unsigned x = 0, y = 0;       // mesh coordinates decoded from the id
  unsigned port = 0, dev = 0;  // device nodes: XP port and device on it (0 for XPs)
  int xp = -1;                 // index into CmnUnit::xps (an XP's own index for XPs)
  int dtc = -1;                // DTC domain; -1 when the hardware does not say (CMN-600, several DTCs)
  int dtm = -1;                // index into CmnUnit::dtms of the DTM that counts this node's events
  bool is_xp() const { return type == 0x6; }
};

// A connected XP port (its connect-info register is not zero).
struct CmnPort {
  unsigned port = 0;
  RegValue<regs::cmn::ConnectInfo> connect_info;
  std::uint8_t device_type = 0;  // what is connected: 0x1e is a CCG (names in platforms/arm/cmn.json)
  bool cal = false;              // a CHI Aggregation Layer joins two devices to the port
};

struct CmnXp {
  unsigned node = 0;                // index into CmnUnit::nodes
  std::vector<CmnPort> ports;       // connected ports, in port order
  unsigned device_ports = 0;        // ports the XP has (CMN-700 node_info); 0 when the part does not say
  unsigned portid_bits = 1;         // node id bits naming the port, above the device bits
  unsigned deviceid_bits = 2;       // node id bits naming the device
  std::vector<unsigned> dtms;       // into CmnUnit::dtms: DTM 0, then DTM 1 (ports 2-3), 2 (ports 4-5)
  std::vector<unsigned> devices;    // into CmnUnit::nodes, in child-pointer order
  std::uint8_t connected() const {  // bitmap of connected ports (the kernel's xp_ports)
    std::uint8_t m = 0;
    for (const auto& p : ports) m |= static_cast<std::uint8_t>(1u << p.port);
    return m;
  }
};

// A DTM: the XP-local counters (four 16-bit) that feed a DTC's global counters.
struct CmnDtm {
  unsigned xp = 0;           // index into CmnUnit::xps
  unsigned index = 0;        // 0, 1 or 2 within the XP
  std::uint64_t offset = 0;  // its registers (PMU_CONFIG at +0x210), from the region base
};

// A DTC: eight 32-bit global counters, the 40-bit cycle counter, DTC_CTL and PMCR of one domain.
struct CmnDtc {
  unsigned domain = 0;       // the kernel's DTC index: DTC nodes in logical id order
  unsigned node = 0;         // into CmnUnit::nodes
  std::uint64_t offset = 0;  // the DTC node's block; its PMU registers start 0x2000 above
};

// A child pointer the walk did not follow, and why.
struct CmnSkipped {
  std::uint64_t pointer = 0;  // the child pointer as read
  int parent = -1;            // index into CmnUnit::nodes of the XP holding it; -1 for the root
  std::string reason;
  bool expected = false;  // external or isolated nodes: normal, never read by design
};

struct CmnUnit {
  // Where firmware describes it.
  std::string firmware;             // "ACPI ARMHC700:00 \\_SB_.CMN0" or "devicetree /cmn@50000000"
  std::string device;               // the platform device: ARMHC700:00, 50000000.cmn
  std::uint16_t firmware_part = 0;  // the part the firmware ID promises
  std::uint64_t base = 0;           // physical address of the configuration region
  std::uint64_t size = 0;
  std::uint64_t root_offset = 0;  // the root node (CMN-600 may have it away from offset 0)
  std::string mapped_through;     // the file the region was mapped from
  std::string kernel_pmu;         // the arm_cmn_N the running kernel registered for it, "" if none
  // What the root node says.
  bool walked = false;  // the node tree was read (false: see the unit's notes)
  std::uint16_t part = 0;
  std::string part_name;  // "CMN-700"
  unsigned revision = 0;
  std::string revision_name;  // "r2p0"
  RegValue<regs::cmn::InfoGlobal> info_global;
  bool multi_dtm = false;
  bool device_isolation = false;
  // The mesh, decoded as arm-cmn.c does.
  unsigned mesh_x = 0, mesh_y = 0;
  unsigned xy_bits = 0;         // node id bits of each coordinate
  std::uint8_t ports_used = 0;  // union of the XPs' connected ports
  std::vector<CmnNode> nodes;   // XPs and device nodes, in walk order
  std::vector<CmnXp> xps;       // sorted by logical id: xps[mesh_x * y + x], as the kernel indexes them
  std::vector<CmnDtm> dtms;
  std::vector<CmnDtc> dtcs;  // by domain
  std::vector<CmnSkipped> skipped;
  unsigned register_reads = 0;  // loads the walk made

  std::uint64_t phys(std::uint64_t offset) const { return base + offset; }

  static const Family& family();  // the family these details belong to
};

}  // namespace pmukit::discovery
