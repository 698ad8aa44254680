// pmukit tests -- named PCI config-space fixtures shared by the walker and lspci-agreement tests.
#pragma once

#include <string>
#include <vector>

#include "pmukit/snapshot/builder.h"

namespace pmukit::test {

struct PciFixture {
  std::string name;  // what it exercises, e.g. "ext-cap-self-loop"
  snapshot::PciDeviceSpec device;
  bool well_formed = true;  // false: the walk must stop early and warn
};

// Devices modelled on the corpus (SPR PMON MSM, Ampere and Yitian DesignWare root ports, the
// Haswell root port whose Intel VSEC ID 2 is not RAS DES, Tegra410 root ports with DVSEC 10de:4)
// plus broken chains (loops, out-of-range and unaligned pointers, truncated config).
std::vector<PciFixture> pci_fixtures();

// Writes every fixture into one snapshot, each at its own BDF.
void write_fixtures(snapshot::SnapshotBuilder& builder, const std::vector<PciFixture>& fixtures);

}  // namespace pmukit::test
