// pmukit -- Arm CMN meshes into the inventory: locate each instance, map its configuration
// region once (read-only), walk it, and name the unit as Linux names the PMU (arm-cmn.c
// arm_cmn_probe(): arm_cmn_<n>, numbered in probe order).
#include "pmukit/families/cmn/cmn_discovery.h"

#include <fmt/format.h>

#include "cmn_locate.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/families/cmn/cmn_walk.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::discovery {

namespace {

class WindowRegion : public CmnRegion {
 public:
  explicit WindowRegion(const RegisterWindow& w) : w_(w) {}
  std::uint64_t size() const override { return w_.size(); }
  std::uint64_t read64(std::uint64_t offset) const override { return w_.read64(offset); }
  std::uint32_t read32(std::uint64_t offset) const override { return w_.read32(offset); }

 private:
  const RegisterWindow& w_;
};

void walk_region(Machine& machine, const platform::CmnData& data, CmnUnit& u, PmuUnit& pu, Inventory& inv) {
  std::unique_ptr<RegisterWindow> window;
  try {
    window = machine.memory().map(u.base, u.size, false);
  } catch (const Error& e) {
    pu.notes.push_back(fmt::format("the configuration region cannot be mapped: {}", e.what()));
    inv.warnings.push_back(fmt::format("{} ({}): configuration region {:#x}+{:#x} not mapped: {}", pu.name, u.device,
                                       u.base, u.size, e.what()));
    return;
  }
  u.mapped_through = window->source();
  walk_cmn(WindowRegion(*window), data, u, inv.warnings);
}

void add_notes(const CmnUnit& u, const platform::CmnPart* part, PmuUnit& pu) {
  unsigned external = 0;
  for (const auto& s : u.skipped) external += s.expected ? 1 : 0;
  if (external)
    pu.notes.push_back(fmt::format("{} child node(s) not read: external or isolated ones are outside the mesh's power "
                                   "domain, as Linux leaves them",
                                   external));
  if (u.device_isolation)
    pu.notes.push_back("device isolation is enabled: Linux refuses this mesh (risk of lockup); only its crosspoints "
                       "were read");
  if (part && !part->note.empty() && u.dtcs.size() > 1) pu.notes.push_back(part->note);
  if (!u.kernel_pmu.empty())
    pu.notes.push_back(fmt::format("the kernel's arm-cmn driver has this mesh as {}: count through perf, direct "
                                   "access would share DTC_CTL and PMCR with it",
                                   u.kernel_pmu));
}

}  // namespace

unsigned discover_cmn(Machine& machine, const Topology& topo, const std::vector<acpi::AcpiDevice>& acpi_devices,
                      Inventory& inv) {
  // A mesh is described by an ACPI device or a devicetree node (arm-cmn.c probes no other way):
  // without either, the SoC data, parsed on first use, is not asked for.
  std::error_code ec;
  if (acpi_devices.empty() && !std::filesystem::is_directory(machine.param("devicetree.path"), ec)) return 0;
  const auto& db = platform::Database::builtin();
  const auto& soc = db.soc(platform::SocSection::Cmn);
  if (!soc.cmn) return 0;
  const auto& data = *soc.cmn;
  auto locations = locate_cmn_acpi(machine, acpi_devices, data, inv.warnings);
  for (auto& l : locate_cmn_dt(machine, data, inv.warnings)) locations.push_back(std::move(l));
  unsigned index = 0;
  for (auto& loc : locations) {
    PmuUnit pu;
    pu.type_name = "cmn";
    pu.pmu_kind = "arm_cmn";
    pu.num_counters = 8;    // per DTC domain (CMN_DT_NUM_COUNTERS)
    pu.counter_width = 32;  // DTC global counters; the cycle counter is 40 bits
    CmnUnit u;
    u.firmware = loc.firmware;
    u.device = loc.device;
    u.firmware_part = loc.part;
    u.base = loc.base;
    u.size = loc.size;
    u.root_offset = loc.root_offset;
    u.kernel_pmu = kernel_cmn_pmu(machine, loc.device_dir);
    pu.name = u.kernel_pmu.empty() ? platform::expand_pattern(data.pmu_name, {{"index", std::to_string(index)}})
                                   : u.kernel_pmu;
    ++index;
    if (!loc.device_dir.empty())
      if (auto node = machine.files().read_int(loc.device_dir / "numa_node"); node && *node >= 0)
        pu.socket = topo.socket_of_node(static_cast<int>(*node)).value_or(-1);
    pu.notes = loc.notes;
    if (loc.usable) walk_region(machine, data, u, pu, inv);
    if (u.kernel_pmu.empty() && locations.size() > 1)
      pu.notes.push_back("named in the order found; Linux numbers arm_cmn_<n> in probe order");
    add_notes(u, data.part(u.part), pu);
    pu.set_detail(std::move(u));
    inv.units.push_back(std::move(pu));
  }
  return static_cast<unsigned>(locations.size());
}

}  // namespace pmukit::discovery
