// pmukit -- platform data for Arm server SoCs and PCIe vendors, as loaded from platforms/:
// the CoreSight implementer/product match table (coresight/), NVIDIA PCIe RC mapping schemes and
// Tegra410 non-CoreSight blocks (nvidia/), DesignWare RAS DES qualification (designware/) and Arm
// CMN meshes (arm/, cmn_data.h).
// Name patterns use {socket}, {rc}, {index}, {type}, {hid}, {uid}, {sbdf}, {bdf} placeholders.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pmukit/families/cmn/cmn_data.h"

namespace pmukit::platform {

struct CoreSightProduct {
  std::uint32_t pmiidr = 0;  // value under the implementer's product_mask
  std::string product;       // "Grace SCF"
  std::string type_name;     // "scf"
  std::string name_pattern;  // "nvidia_scf_pmu_{socket}"
  std::string pmu_kind;
  std::string note;
  bool needs(std::string_view placeholder) const { return name_pattern.find(placeholder) != std::string::npos; }
};

struct CoreSightImplementer {
  std::uint16_t implementer = 0;  // JEP106 code as PMIIDR[11:0] holds it
  std::string name;
  std::string kernel_module;
  std::uint32_t product_mask = 0;
  std::vector<CoreSightProduct> products;
  CoreSightProduct other;  // the backend's catch-all
};

struct CoreSightTable {
  std::uint32_t implementer_mask = 0xfff;
  std::vector<CoreSightImplementer> implementers;
  CoreSightProduct generic;          // no backend: arm_cspmu_<type>_<index>
  std::string generic_acpi_pattern;  // ACPI-type nodes: arm_cspmu_acpi_<hid>_<uid>
  std::string generic_module;
  std::map<std::uint16_t, std::string> jep106;  // implementer names for display

  struct Match {
    const CoreSightImplementer* implementer = nullptr;  // null: generic driver
    const CoreSightProduct* product = nullptr;          // never null
    bool exact = false;                                 // a listed product, not a catch-all
  };
  Match match(std::uint32_t pmiidr) const;
  std::string implementer_name(std::uint16_t code) const;
};

struct RcMapPmu {
  std::string name_pattern;  // "nvidia_pcie_pmu_{socket}_rc_{rc}"
  std::string rp_term;       // "src_rp_mask": a bitmask of root ports
  std::string bdf_terms;     // "src_bdf={bdf},src_bdf_en=1"; "" when the PMU has no BDF filter
  std::string example_event;
};

struct RcMapScheme {
  std::string name;    // "tegra410", "grace"
  std::string method;  // "dvsec" or "domain"
  // dvsec
  std::uint16_t dvsec_vendor = 0;
  std::uint16_t dvsec_id = 0;
  std::map<std::string, unsigned> bytes;  // bus, segment, rp, rc, socket -> offset in the DVSEC
  // domain
  std::uint16_t vendor = 0;
  std::vector<std::uint16_t> root_port_devices;
  unsigned socket_shift = 0;
  std::uint32_t rp_mask = 0;
  unsigned max_rp = 0;
  std::vector<RcMapPmu> pmus;
};

struct T410Block {
  std::string hid;        // "NVDA2020"
  std::string interface;  // "NV-DLink"
  std::string family;     // inventory family: "t410-c2c" or "t410-cmem-latency"
  unsigned instances = 0;
  std::string name_pattern;
  std::string pmu_kind;
  std::string peer;
  unsigned counters = 0;
  unsigned width = 0;
  std::vector<std::pair<std::string, std::uint32_t>> registers;  // per instance, offsets from regs/tegra410.h
};

struct DwcRasDes {
  std::uint16_t vsec_id = 0;
  std::uint8_t vsec_rev = 0;
  std::string name_pattern;
  struct Alias {
    std::string pattern;  // another kernel's name for the same unit ("pcie_bdf_{bdf}")
    bool hardware_units = false;
  };
  std::vector<Alias> aliases;
  std::string pmu_kind;
  std::map<std::uint16_t, std::string> vendors;
  std::vector<std::string> event_groups;
};

struct SocData {
  std::optional<CoreSightTable> coresight;
  std::vector<RcMapScheme> rc_maps;
  std::vector<T410Block> t410_blocks;
  std::optional<DwcRasDes> dwc;
  std::optional<CmnData> cmn;  // Arm CMN meshes (arm/cmn.json)
};

// Loads the sections this file describes from one platforms/ document (absent sections are
// skipped); throws Error naming `where` and the entry for malformed data.
void load_soc_data(const nlohmann::json& doc, const std::string& where, SocData& out);
// Every pmu kind the SoC data names; the database checks they exist.
std::vector<std::pair<std::string, std::string>> soc_pmu_references(const SocData& data);

// Fills {placeholder} fields of a name pattern; unknown placeholders are left as written.
std::string expand_pattern(std::string_view pattern, const std::map<std::string, std::string>& values);

}  // namespace pmukit::platform
