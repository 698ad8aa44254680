// Discovery says what it drops and why (issue 30, points 3 and 7): two units of any family on one
// register block are named together (an APMT listing two CoreSight nodes on one page, a Tegra410
// block on a CoreSight page), a discovery device whose config space reads short is named with the
// reason its units are missing, and a unit whose registers would land on an architectural MSR, in
// the first MiB of physical memory, or inside its own discovery table's BAR is skipped with the
// address and what is there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "discovered.h"
#include "pmukit/discovery/discover.h"
#include "pmukit/families/registry.h"
#include "support/machines.h"

using namespace pmukit;
using json = nlohmann::json;
using test::Discovered;
using test::noted;

namespace {

json bundled_spec(const std::string& name) {
  std::ifstream in(std::string(PMUKIT_SOURCE_DIR) + "/platforms/machines/" + name + ".json");
  return json::parse(in);
}

json box(int type, const std::string& access, const std::string& box_ctl) {
  return json{{"type", type},  {"ids", "0"},      {"access", access},   {"box_ctl", box_ctl},
              {"num_regs", 4}, {"ctl_offset", 8}, {"ctr_offset", 0x20}, {"width", 48}};
}

}  // namespace

// Two APMT nodes on one page (the SCF PMU of socket 1 placed on socket 0's): both are listed,
// named together in a warning and a note each, and each names the other as a unit it is never
// programmed with.
TEST(UnitOverlap, TwoCoreSightNodesOnOnePageAreNamedTogether) {
  auto spec = bundled_spec("grace-2s");
  auto& nodes = spec.at("apmt").at("nodes");
  ASSERT_EQ(nodes[5].at("kernel_pmu"), "nvidia_scf_pmu_1");
  nodes[5]["base0"] = nodes[0]["base0"];
  nodes[5]["base1"] = nodes[0]["base1"];
  Discovered d(spec);
  const std::string a = nodes[0].at("kernel_pmu"), b = nodes[5].at("kernel_pmu");
  ASSERT_TRUE(d.unit(a) && d.unit(b)) << d.warnings();
  EXPECT_TRUE(d.warned(a + " and " + b + " claim the same register (MMIO 0x11000000)")) << d.warnings();
  EXPECT_TRUE(d.warned("they are never programmed together")) << d.warnings();
  EXPECT_TRUE(noted(*d.unit(a), "shares MMIO 0x11000000 with " + b));
  EXPECT_EQ(d.unit(a)->shares_registers_with, std::vector<std::string>{b});
  EXPECT_EQ(d.unit(b)->shares_registers_with, std::vector<std::string>{a});
}

// Across families: a Tegra410 C2C block whose instance 0 is a CoreSight PMU's page 1.
TEST(UnitOverlap, ATegra410BlockOnACoreSightPageIsNamed) {
  auto spec = bundled_spec("t410-2s");
  const std::string page1 = spec.at("apmt").at("nodes")[0].at("base1");
  for (auto& dev : spec.at("acpi_devices"))
    if (dev.at("hid") == "NVDA2023" && dev.at("uid") == 0) dev["instances"]["base"] = page1;
  Discovered d(spec);
  bool named = false;
  for (const auto& w : d.r.inventory.warnings)
    named = named || (w.find("nvidia_ucf_pmu_0 and ") != std::string::npos &&
                      w.find("claim the same register (MMIO " + page1 + ")") != std::string::npos);
  EXPECT_TRUE(named) << d.warnings();
}

// The bundled machines have no overlap.
TEST(UnitOverlap, BundledMachinesHaveNone) {
  for (const char* name : {"spr-2s", "gnr-2s", "grace-2s", "t410-2s", "yitian"}) {
    Discovered d{std::string(name)};
    EXPECT_FALSE(d.warned("claim the same register")) << name << ":\n" << d.warnings();
  }
}

// The PMON discovery device with 256 readable bytes of config space: its DVSEC at 0x100 is out of
// reach, and every unit of its table is missing. Said, with the device and the reason.
TEST(DroppedUnits, AShortConfigSpaceIsNamed) {
  test::TempDir dir;
  families::build_bundled("spr-2s", dir.path() / "m");
  const auto config = dir.path() / "m/sys/bus/pci/devices/0000:6a:03.1/config";
  ASSERT_TRUE(std::filesystem::exists(config));
  std::filesystem::resize_file(config, 256);
  Machine machine(MachineOptions{dir.path() / "m"});
  auto r = families::discover(machine);
  bool named = false;
  for (const auto& w : r.inventory.warnings)
    named = named || w.starts_with("0000:6a:03.1 (8086:09a7, a PMON discovery table device): only 256 bytes of its "
                                   "config space can be read, and its discovery DVSECs are in extended config space "
                                   "(0x100 and up): the units of its tables are not listed");
  EXPECT_TRUE(named);
}

// A box on MSR 0x10, the time-stamp counter: skipped, naming the architectural register.
TEST(DroppedUnits, ABoxOnAnArchitecturalMsrIsSkipped) {
  Discovered d(test::spr_every_access_type(json::array({box(1, "msr", "0x10")})));
  EXPECT_FALSE(d.unit("uncore_iio")) << d.warnings();
  EXPECT_TRUE(d.warned("(type 1 id 0): skipped: MSR 0x10 is IA32_TIME_STAMP_COUNTER, an architectural MSR of every "
                       "core (Intel SDM Vol. 4, Table 2-2), not an uncore PMON register"))
      << d.warnings();
}

// A box at physical 0x8 (real-mode interrupt vectors), and one inside the discovery table's own
// BAR (0x2fffe00000, where the table is): skipped, naming the address and what is there.
TEST(DroppedUnits, ABoxInLowMemoryOrInItsTableIsSkipped) {
  Discovered low(test::spr_every_access_type(json::array({box(12, "mmio", "0x8")})));
  EXPECT_TRUE(low.warned("(type 12 id 0): skipped: physical 0x8 is in the first MiB of memory")) << low.warnings();
  Discovered table(test::spr_every_access_type(json::array({box(12, "mmio", "0x2fffe01000")})));
  EXPECT_TRUE(table.warned("(type 12 id 0): skipped: registers 0x2fffe01000-0x2fffe0103f lie inside its own discovery "
                           "table's BAR (0000:6a:03.1 BAR0, 0x2fffe00000-"))
      << table.warnings();
  EXPECT_TRUE(table.warned("programming them would write the table")) << table.warnings();
}
