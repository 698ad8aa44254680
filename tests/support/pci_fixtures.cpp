// pmukit tests -- the fixture catalogue. Offsets and IDs follow the corpus lspci texts.
#include "support/pci_fixtures.h"

namespace pmukit::test {

using snapshot::ConfigImage;

namespace {

snapshot::PciDeviceSpec spec(const char* bdf, const ConfigImage& cfg, unsigned size = 4096) {
  snapshot::PciDeviceSpec s;
  s.bdf = *Bdf::parse(bdf);
  s.config = cfg;
  s.config_size = size;
  return s;
}

ConfigImage spr_pmon_msm() {
  // corpus spr_archercity 6a:03.1: 90 PCIe RCiEP, e0 PM, DVSEC IDs 1,2,3,4,0, VSEC 0x41.
  ConfigImage c(0x8086, 0x09a7, 0x110100);
  c.add_pcie_cap(0x90, 0x9);
  c.add_std_cap(0xe0, 0x01, {0x03, 0x00});
  c.add_dvsec(0x100, 0x8086, 1, 1, 16);
  c.add_dvsec(0x110, 0x8086, 2, 1, 16);
  c.add_dvsec(0x120, 0x8086, 3, 1, 16);
  c.add_dvsec(0x130, 0x8086, 4, 1, 16);
  c.add_dvsec(0x140, 0x8086, 0, 1, 16);
  c.add_vsec(0x160, 0x41, 1, 0x10);
  return c;
}

ConfigImage dw_root_port(std::uint16_t vendor, std::uint16_t device, std::uint16_t rasdes_at) {
  // corpus ampere-altra a0 (248 VSEC 2 rev 4) and yitian710 b0:00.0 (374 VSEC 2 rev 4).
  ConfigImage c(vendor, device, 0x060400, 1);
  c.add_std_cap(0x40, 0x01, {0x03, 0x00});
  c.add_std_cap(0x50, 0x05);
  c.add_pcie_cap(0x70, 0x4);
  c.add_ext_cap(0x100, 0x01, 2);
  c.add_ext_cap(0x148, 0x19, 1);
  c.add_vsec(rasdes_at, 0x02, 4, 0x100);
  c.add_vsec(static_cast<std::uint16_t>(rasdes_at + 0x100), 0x01, 1, 0x038);
  c.add_ext_cap(static_cast<std::uint16_t>(rasdes_at + 0x138), 0x25, 1);
  c.set_bus_numbers(0, 1, 1);
  return c;
}

ConfigImage hsw_root_port() {
  // corpus cap-aer-root 00:02.0: Intel VSEC ID 2 rev 0 at 0x100 (not DesignWare RAS DES).
  ConfigImage c(0x8086, 0x2f04, 0x060400, 1);
  c.add_std_cap(0x40, 0x0d);
  c.add_std_cap(0x60, 0x05);
  c.add_pcie_cap(0x90, 0x4);
  c.add_std_cap(0xe0, 0x01, {0x03, 0x00});
  c.add_vsec(0x100, 0x02, 0, 0x00c);
  c.add_ext_cap(0x110, 0x0d, 1);
  c.add_ext_cap(0x148, 0x01, 1);
  c.add_vsec(0x1d0, 0x03, 1, 0x00a);
  c.set_bus_numbers(0, 3, 3);
  return c;
}

ConfigImage t410_root_port() {
  // A Tegra410 root port with the RC-mapping DVSEC (vendor 10de, ID 4).
  ConfigImage c(0x10de, 0x22b2, 0x060400, 1);
  c.add_std_cap(0x40, 0x01, {0x03, 0x00});
  c.add_pcie_cap(0x70, 0x4);
  c.add_ext_cap(0x100, 0x01, 2);
  c.add_dvsec(0x200, 0x10de, 4, 1, 0x14);
  c.set_bus_numbers(0, 1, 1);
  return c;
}

}  // namespace

std::vector<PciFixture> pci_fixtures() {
  std::vector<PciFixture> f;
  f.push_back({"spr-pmon-msm", spec("0000:6a:03.1", spr_pmon_msm())});
  f.push_back({"ampere-rasdes-root-port", spec("0000:00:01.0", dw_root_port(0x1def, 0xe101, 0x248))});
  f.push_back({"yitian-rasdes-root-port", spec("0000:b0:00.0", dw_root_port(0x1ded, 0x8000, 0x374))});
  f.push_back({"hsw-intel-vsec2-root-port", spec("0000:00:02.0", hsw_root_port())});
  f.push_back({"t410-rcmap-root-port", spec("0001:00:00.0", t410_root_port())});
  f.push_back({"config-256-bytes", spec("0000:00:05.0", spr_pmon_msm(), 256)});

  ConfigImage self = spr_pmon_msm();
  self.set_ext_next(0x160, 0x160);
  f.push_back({"ext-cap-self-loop", spec("0000:10:00.0", self), false});
  ConfigImage cycle = spr_pmon_msm();
  cycle.set_ext_next(0x160, 0x110);
  f.push_back({"ext-cap-cycle", spec("0000:10:01.0", cycle), false});
  ConfigImage std_cycle = spr_pmon_msm();
  std_cycle.set_std_next(0xe0, 0x90);
  f.push_back({"std-cap-cycle", spec("0000:10:02.0", std_cycle), false});
  ConfigImage low = spr_pmon_msm();
  low.set_ext_next(0x120, 0x0f0);
  f.push_back({"ext-cap-next-below-0x100", spec("0000:10:03.0", low), false});
  ConfigImage unaligned = spr_pmon_msm();
  unaligned.set_ext_next(0x110, 0x122);
  f.push_back({"ext-cap-next-unaligned", spec("0000:10:04.0", unaligned), false});
  return f;
}

void write_fixtures(snapshot::SnapshotBuilder& builder, const std::vector<PciFixture>& fixtures) {
  for (const auto& fx : fixtures) builder.add_pci_device(fx.device);
}

}  // namespace pmukit::test
