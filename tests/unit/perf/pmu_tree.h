// pmukit tests -- fake event_source trees laid out like real uncore PMUs' sysfs directories.
#pragma once

#include <map>
#include <string>

#include "pmukit/snapshot/builder.h"

namespace pmukit::test {

// Writes /sys/bus/event_source/devices/<pmu>/<relative path> for every entry of `files`.
inline void add_pmu(snapshot::SnapshotBuilder& b, const std::string& pmu,
                    const std::map<std::string, std::string>& files) {
  for (const auto& [rel, text] : files) b.write_text("/sys/bus/event_source/devices/" + pmu + "/" + rel, text);
}

// A Sapphire Rapids-like IMC box: umask split over config:8-15,32-55, cas_count_read in MiB.
inline void add_spr_imc(snapshot::SnapshotBuilder& b, const std::string& pmu, const std::string& type) {
  add_pmu(b, pmu,
          {{"type", type + "\n"},
           {"cpumask", "0\n"},
           {"perf_event_mux_interval_ms", "4\n"},
           {"format/event", "config:0-7\n"},
           {"format/umask", "config:8-15,32-55\n"},
           {"format/edge", "config:18\n"},
           {"format/inv", "config:23\n"},
           {"format/thresh", "config:24-31\n"},
           {"events/cas_count_read", "event=0x04,umask=0x03\n"},
           {"events/cas_count_read.scale", "6.103515625e-5\n"},
           {"events/cas_count_read.unit", "MiB\n"},
           {"events/cas_count_write", "event=0x04,umask=0x0c\n"},
           {"events/cas_count_write.scale", "6.103515625e-5\n"},
           {"events/cas_count_write.unit", "MiB\n"},
           {"events/clockticks", "event=0x01,umask=0x00\n"}});
}

// Tegra410 PCIe (nvidia_cspmu v2): source filters in config1, destination filters in config2.
inline void add_nvidia_pcie(snapshot::SnapshotBuilder& b) {
  add_pmu(b, "nvidia_pcie_pmu_0_rc_1",
          {{"type", "31\n"},
           {"cpumask", "0\n"},
           {"format/event", "config:0-32\n"},
           {"format/src_rp_mask", "config1:0-7\n"},
           {"format/src_bdf", "config1:8-23\n"},
           {"format/src_bdf_en", "config1:24\n"},
           {"format/dst_loc_cmem", "config2:0\n"},
           {"format/dst_loc_gmem", "config2:1\n"},
           {"format/dst_rem", "config2:4\n"},
           {"events/rd_bytes", "event=0x0\n"},
           {"events/wr_bytes", "event=0x1\n"},
           {"events/cycles", "event=0x100000000\n"}});
}

// A DesignWare PCIe root port (dwc_pcie_pmu): lane events want lane=?.
inline void add_dwc_rootport(snapshot::SnapshotBuilder& b) {
  add_pmu(b, "dwc_rootport_3018",
          {{"type", "32\n"},
           {"cpumask", "1\n"},
           {"format/eventid", "config:0-15\n"},
           {"format/type", "config:16-19\n"},
           {"format/lane", "config:20-27\n"},
           {"events/tx_pcie_tlp_data_payload", "eventid=0x20,type=0x0\n"},
           {"events/tx_memory_write", "eventid=0x700,type=0x1,lane=?\n"}});
}

// This machine's msr and software PMUs, as toolchain.md §4 lists them.
inline void add_msr_and_software(snapshot::SnapshotBuilder& b) {
  add_pmu(b, "msr",
          {{"type", "9\n"},
           {"perf_event_mux_interval_ms", "4\n"},
           {"format/event", "config:0-63\n"},
           {"events/tsc", "event=0x00\n"}});
  add_pmu(b, "software", {{"type", "1\n"}, {"perf_event_mux_interval_ms", "4\n"}});
}

}  // namespace pmukit::test
