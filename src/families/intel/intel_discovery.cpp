// pmukit -- Intel PMON discovery: table location, mapping, topology and unit naming.
#include "pmukit/families/intel/intel_discovery.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "intel_clash.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/acpi/devices.h"
#include "pmukit/discovery/region_proof.h"
#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/intel/intel_table.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::discovery {

namespace {

using namespace intel;
using namespace regs::intel;

constexpr std::uint64_t kMaxTableBytes = 0x200000;  // (1 + 1023) * 255 * 8 rounded up
constexpr std::uint64_t kPhysLimit = 1ull << 52;    // architectural physical address width

struct TableLocation {
  IntelTable table;
  std::uint64_t base = 0;
  int bir = -1;  // PCI tables: the BAR the DVSEC names
};

// Reads the BAR a PMON DVSEC points at, the way Linux does: from the BAR register in config space.
std::optional<std::uint64_t> dvsec_bar(PciConfig& cfg, const pci::Capability& cap, std::vector<std::string>& warnings,
                                       int& bir_out) {
  std::string where = fmt::format("{} DVSEC @{:#x}", cfg.bdf().str(), cap.offset);
  auto bir_dw = cfg.read32(cap.offset + kDvsecBirOffset);
  if (!bir_dw) {
    warnings.push_back(where + ": BIR register unreadable");
    return std::nullopt;
  }
  if (*bir_dw & ~kDvsecBirMask) {
    warnings.push_back(
        fmt::format("{}: +0xc = {:#x} has bits outside BIR[2:0]: table rejected, as Linux does", where, *bir_dw));
    return std::nullopt;
  }
  int bir = static_cast<int>(*bir_dw & kDvsecBirMask);
  bir_out = bir;
  if (bir > 5) {
    warnings.push_back(fmt::format("{}: BIR {} names no BAR", where, bir));
    return std::nullopt;
  }
  unsigned reg = kBar0Offset + 4u * static_cast<unsigned>(bir);
  auto lo = cfg.read32(reg);
  if (!lo) {
    warnings.push_back(fmt::format("{}: BAR{} register @{:#x} unreadable", where, bir, reg));
    return std::nullopt;
  }
  if (*lo & ~kBarMemMask & ~kBarMemType64) {
    warnings.push_back(fmt::format("{}: BAR{} = {:#x} is not a non-prefetchable memory BAR", where, bir, *lo));
    return std::nullopt;
  }
  std::uint64_t addr = *lo & kBarMemMask;
  if (*lo & kBarMemType64) {
    auto hi = cfg.read32(reg + 4);
    if (!hi) {
      warnings.push_back(fmt::format("{}: upper half of 64-bit BAR{} unreadable", where, bir));
      return std::nullopt;
    }
    addr |= static_cast<std::uint64_t>(*hi) << 32;
  }
  if (addr == 0) {
    warnings.push_back(fmt::format("{}: BAR{} is 0 (not assigned): table skipped", where, bir));
    return std::nullopt;
  }
  return addr;
}

std::vector<TableLocation> pci_tables(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topo,
                                      Inventory& inv) {
  std::vector<TableLocation> out;
  for (const auto& d : devices) {
    if (d.vendor_id != kVendorIntel) continue;
    // The discovery DVSEC is in extended config space: a table device whose config space reads
    // short (sysfs shows 64 bytes to users other than root; a truncated snapshot) hides every
    // unit of its tables. Said, not skipped silently.
    if (d.device_id == kDiscoveryTableDevice && d.config_size < 4096)
      inv.warnings.push_back(fmt::format("{} ({:04x}:{:04x}, a PMON discovery table device): only {} bytes of its "
                                         "config space can be read, and its discovery DVSECs are in extended config "
                                         "space (0x100 and up): the units of its tables are not listed (as root, "
                                         "sysfs shows all 4096 bytes; a snapshot's config file may be truncated)",
                                         d.bdf.str(), d.vendor_id, d.device_id, d.config_size));
    for (const auto* cap : d.find_ext(0x23)) {
      if (!cap->dvsec || cap->dvsec->id != kDvsecIdPmon) continue;
      auto& cfg = machine.pci().config(d.bdf);
      int bir = 0;
      auto addr = dvsec_bar(cfg, *cap, inv.warnings, bir);
      if (!addr) continue;
      TableLocation loc;
      loc.base = *addr;
      loc.bir = bir;
      loc.table.origin = "pci";
      loc.table.device = d.bdf;
      loc.table.source = fmt::format("{} DVSEC @{:#x} BAR{}", d.bdf.str(), cap->offset, bir);
      if (cap->dvsec->vendor != kVendorIntel)
        inv.warnings.push_back(fmt::format("{}: DVSEC vendor {:04x} is not Intel; accepted as Linux does",
                                           loc.table.source, cap->dvsec->vendor));
      if (auto socket = d.numa_node >= 0 ? topo.socket_of_node(d.numa_node) : std::nullopt) {
        loc.table.socket = *socket;
        loc.table.socket_source = fmt::format("NUMA node {}", d.numa_node);
      }
      out.push_back(loc);
    }
  }
  // Without NUMA information, tables take sockets in the order they were found (as Linux does).
  int next = 0;
  for (auto& loc : out)
    if (loc.table.socket < 0) {
      loc.table.socket = next++;
      loc.table.socket_source = "order found (NUMA node unknown)";
    }
  return out;
}

std::vector<TableLocation> msr_tables(Machine& machine, const Topology& topo, std::vector<std::string>& warnings) {
  std::vector<TableLocation> out;
  // MSRs 0x201e/0x710/0x711 are Intel's: on another vendor's CPU they name nothing.
  auto identity = read_cpu_identity(machine);
  if (!identity || identity->vendor != "GenuineIntel") return out;
  std::set<std::uint64_t> seen;
  std::set<std::pair<int, int>> dies;
  for (const auto& [cpu, place] : topo.cpus) {
    if (!dies.insert({place.package, place.die}).second || !machine.has_msr_device(cpu)) continue;
    try {
      machine.check_register_file(machine.msr(cpu).path());
    } catch (const Error& e) {
      warnings.push_back(fmt::format("{}: MSR discovery tables not read", e.what()));
      continue;
    }
    for (std::uint32_t msr : {kMsrDiscovery, kMsrCbbDiscovery, kMsrPackageDiscovery}) {
      auto v = machine.msr(cpu).try_read(msr);
      if (!v || *v == 0 || !seen.insert(*v).second) continue;
      // The table is read as qwords from this physical address: a misaligned or impossible one
      // is firmware (or snapshot) garbage, not a table.
      if (*v % 8 || *v >= kPhysLimit) {
        warnings.push_back(fmt::format("MSR {:#x} on CPU {}: discovery table address {:#x} is {}: skipped", msr, cpu,
                                       *v, *v % 8 ? "not 8-byte aligned" : "outside the physical address space"));
        continue;
      }
      TableLocation loc;
      loc.base = *v;
      loc.table.origin = "msr";
      loc.table.source = fmt::format("MSR {:#x} on CPU {}", msr, cpu);
      loc.table.socket = place.package;
      loc.table.die = place.die;
      loc.table.socket_source = fmt::format("package of CPU {}", cpu);
      out.push_back(loc);
    }
  }
  return out;
}

// Whether sysfs has the function's `resource` file: the kernel's record of its BARs, which an lspci
// dump replayed offline does not have.
bool kernel_lists_bars(Machine& machine, const Bdf& bdf) {
  return machine.files().stat(machine.param("sysfs.path") / "devices" / bdf.str() / "resource", false).has_value();
}

// Maps a table once, only where it is proven to be: a PCI table through the BAR the kernel lists for
// the DVSEC's function (its resource file), at the address the BAR register holds -- the whole BAR
// in one mmap; an MSR table (Intel CPU, the MSR), or a PCI table of an lspci dump, where /proc/iomem
// does not contradict it: the global record's page first and then exactly the table's size (two).
// Throws Error saying why not.
std::unique_ptr<RegisterWindow> map_table(Machine& machine, const TableLocation& loc, const acpi::Iomem& iomem,
                                          const std::vector<Bdf>& intel_functions) {
  PhysicalMemory& mem = machine.memory();
  if (loc.table.origin == "pci" && loc.table.device && kernel_lists_bars(machine, *loc.table.device)) {
    const auto* bar = kernel_bar(machine, *loc.table.device, loc.bir, loc.base);
    if (!bar)
      throw Error(fmt::format("not proven, not mapped: the kernel lists no memory BAR{} at {:#x} for {} (its "
                              "resource file)",
                              loc.bir, loc.base, loc.table.device->str()));
    return mem.map_bar(*bar, 0, std::min(bar->end - bar->start + 1, kMaxTableBytes), false);
  }
  // An lspci dump (no sysfs record of the function's BARs) or an MSR: where nothing contradicts it.
  if (auto why = contradicted_region(machine, iomem, loc.base, kRecordBytes, intel_functions))
    throw Error("not proven, not mapped: " + *why);
  if (auto bar = mem.find_bar(loc.base, kRecordBytes)) {
    return mem.map(loc.base, std::min(bar->end - loc.base + 1, kMaxTableBytes), false);
  }
  auto first = mem.map(loc.base, 0x1000, false);
  std::uint64_t need = std::min(table_bytes(read_register<GlobalTable1>(*first)), kMaxTableBytes);
  if (need <= first->size()) return first;
  return mem.map(loc.base, need, false);
}

// What a unit's registers must stay out of: the table's BAR (or the table, found through an MSR).
ClashContext table_extent(Machine& machine, std::uint64_t base, const DecodedTable& decoded, const std::string& source,
                          const acpi::Iomem* iomem) {
  ClashContext c;
  c.iomem = iomem;
  if (const auto* bar = machine.memory().find_bar(base, kRecordBytes)) {
    c.table_first = bar->start, c.table_last = bar->end;
    c.table_name = fmt::format("{} BAR{}", bar->bdf.str(), bar->index);
  } else {
    c.table_first = base;
    c.table_last = base + std::max<std::uint64_t>(decoded.stride_bytes, 8) * (decoded.max_units + 1ull) - 1;
    c.table_name = "the table of " + source;
  }
  return c;
}

struct UnitContext {
  Machine& machine;
  const std::vector<pci::Device>& devices;
  const Topology& topo;
  const platform::IntelUncore* platform;
  Inventory& inv;
  const acpi::Iomem& iomem;                 // what the kernel says the address space holds
  const std::vector<Bdf>& intel_functions;  // whose BARs an Intel unit's registers may be in
  ClashContext clash;                       // the current table's
};

bool pci_device_exists(const std::vector<pci::Device>& devices, const Bdf& bdf) {
  for (const auto& d : devices)
    if (d.bdf == bdf) return true;
  return false;
}

bool place_msr(UnitContext& ctx, const DecodedUnit& u, const IntelTable& table, const std::string& where,
               IntelUnit& iu) {
  iu.access = RegAccess::Msr;
  iu.ctl_step = iu.ctr_step = 1;
  // Checked before adding, so that a box control near 2^64 cannot wrap into range.
  std::uint64_t reach = std::uint64_t{std::max(u.ctl_offset, u.ctr_offset)} + u.num_regs;
  if (u.box_ctl > 0xffffffffull || 0xffffffffull - u.box_ctl < reach) {
    ctx.inv.warnings.push_back(
        fmt::format("{}: skipped: MSRs {:#x}+{:#x} run beyond the 32-bit MSR space", where, u.box_ctl, reach));
    return false;
  }
  iu.msr_cpu = ctx.topo.first_cpu(table.socket, table.origin == "msr" ? table.die : -1);
  iu.box_ctl = u.box_ctl;
  return true;
}

bool place_mmio(UnitContext& ctx, const DecodedUnit& u, const platform::IntelBoxType* bt, const std::string& where,
                IntelUnit& iu) {
  const unsigned n = u.num_regs;
  iu.access = RegAccess::Mmio;
  iu.ctl_step = bt && bt->ctl_step ? bt->ctl_step : kMmioCtlStep;
  iu.ctr_step = kMmioCtrStep;
  std::uint64_t span = std::max<std::uint64_t>(u.ctl_offset + iu.ctl_step * n, u.ctr_offset + kMmioCtrStep * n);
  if (bt && bt->fixed) span = std::max({span, bt->fixed->ctl_offset + 4, bt->fixed->ctr_offset + 8});
  if (u.box_ctl >= kPhysLimit || kPhysLimit - u.box_ctl < span) {
    ctx.inv.warnings.push_back(
        fmt::format("{}: skipped: box control {:#x} is outside the physical address space", where, u.box_ctl));
    return false;
  }
  // The box control and control registers are 32-bit, the counters 64-bit (Linux
  // uncore_discovery.c intel_generic_uncore_mmio_*: writel/readq): each must be aligned.
  if (u.box_ctl % 4 || (u.box_ctl + u.ctl_offset) % 4 || (u.box_ctl + u.ctr_offset) % 8) {
    ctx.inv.warnings.push_back(fmt::format("{}: skipped: box control {:#x} (control +{:#x}, counters +{:#x}) is not "
                                           "aligned for 32-bit controls and 64-bit counters",
                                           where, u.box_ctl, u.ctl_offset, u.ctr_offset));
    return false;
  }
  if (auto why = contradicted_region(ctx.machine, ctx.iomem, u.box_ctl, span, ctx.intel_functions)) {
    ctx.inv.warnings.push_back(fmt::format("{}: skipped: registers {:#x}..{:#x} not proven: {}", where, u.box_ctl,
                                           u.box_ctl + span - 1, *why));
    return false;
  }
  auto& mem = ctx.machine.memory();
  if (mem.find_bar(u.box_ctl, 1) && !mem.find_bar(u.box_ctl, span)) {
    ctx.inv.warnings.push_back(fmt::format("{}: skipped: registers {:#x}..{:#x} straddle the end of a PCI BAR", where,
                                           u.box_ctl, u.box_ctl + span - 1));
    return false;
  }
  iu.box_ctl = u.box_ctl;
  return true;
}

bool place_pci(UnitContext& ctx, const DecodedUnit& u, const std::string& where, IntelUnit& iu) {
  iu.access = RegAccess::PciConfig;
  iu.ctl_step = iu.ctr_step = kPciStep;
  const RegValue<PciCtl> ctl{u.box_ctl};  // a PCI box's control address is a PciCtl word
  Bdf bdf{static_cast<std::uint32_t>(PciCtl::Domain::get(ctl)), static_cast<std::uint8_t>(PciCtl::Bus::get(ctl)),
          static_cast<std::uint8_t>(PciCtl::Devfn::get(ctl) >> 3),
          static_cast<std::uint8_t>(PciCtl::Devfn::get(ctl) & 7)};
  std::uint64_t off = PciCtl::Offset::get(ctl);
  if (!pci_device_exists(ctx.devices, bdf)) {
    ctx.inv.warnings.push_back(fmt::format("{}: skipped: its PCI device {} does not exist", where, bdf.str()));
    return false;
  }
  if (off + std::max(u.ctl_offset, u.ctr_offset) + kPciStep * u.num_regs > 4096) {
    ctx.inv.warnings.push_back(fmt::format("{}: skipped: registers run past {} config space", where, bdf.str()));
    return false;
  }
  iu.pci_device = bdf;
  iu.box_ctl = off;
  return true;
}

// Counter controls and counters from the record; the filter, fixed counter and event constraints
// from platform data.
void add_registers(const DecodedUnit& u, const platform::IntelBoxType* bt, IntelUnit& iu) {
  for (unsigned i = 0; i < u.num_regs; ++i) {
    iu.ctl.push_back(iu.box_ctl + u.ctl_offset + std::uint64_t{iu.ctl_step} * i);
    iu.ctr.push_back(iu.box_ctl + u.ctr_offset + std::uint64_t{iu.ctr_step} * i);
  }
  if (u.status_offset) iu.status = iu.box_ctl + u.status_offset;
  if (bt && bt->filter && iu.access == RegAccess::Msr) set_filter(*bt->filter, u.box_id, iu);
  if (bt) iu.counter_constraints = bt->constraints;
  if (bt && bt->fixed && iu.access == RegAccess::Mmio) {
    iu.fixed_ctl = iu.box_ctl + bt->fixed->ctl_offset;
    iu.fixed_ctr = iu.box_ctl + bt->fixed->ctr_offset;
  }
}

// Fills the register addresses of one unit; false (with a warning) when they cannot be right.
bool place_registers(UnitContext& ctx, const DecodedUnit& u, const platform::IntelBoxType* bt, const IntelTable& table,
                     const std::string& where, IntelUnit& iu) {
  iu.ctl_offset = u.ctl_offset;
  iu.ctr_offset = u.ctr_offset;
  iu.status_offset = u.status_offset;
  bool placed = false;
  switch (static_cast<AccessType>(u.access_type)) {
  case AccessType::Msr:
    placed = place_msr(ctx, u, table, where, iu);
    break;
  case AccessType::Mmio:
    placed = place_mmio(ctx, u, bt, where, iu);
    break;
  case AccessType::Pci:
    placed = place_pci(ctx, u, where, iu);
    break;
  case AccessType::Unknown:
    break;
  }
  if (placed) add_registers(u, bt, iu);
  return placed;
}

// Linux replaces the CHA count from the table with MSR 0x2FFE when it reads non-zero.
void apply_cha_count(UnitContext& ctx, const IntelTable& table, std::size_t first_unit) {
  const auto* plat = ctx.platform;
  if (!plat || !plat->cha_count_msr) return;
  int cpu = ctx.topo.first_cpu(table.socket);
  if (cpu < 0 || !ctx.machine.has_msr_device(cpu)) return;
  auto count = ctx.machine.msr(cpu).try_read(*plat->cha_count_msr);
  if (!count || *count == 0) return;
  auto& units = ctx.inv.units;
  unsigned listed = 0;
  for (std::size_t i = first_unit; i < units.size(); ++i)
    if (units[i].as<IntelUnit>()->type == *plat->cha_count_type) ++listed;
  if (listed == *count) return;
  if (listed < *count) {
    ctx.inv.warnings.push_back(fmt::format("{}: MSR {:#x} on CPU {} counts {} CHAs but the table lists {}",
                                           table.source, *plat->cha_count_msr, cpu, *count, listed));
    return;
  }
  std::erase_if(units, [&](const PmuUnit& u) {
    const auto* iu = u.as<IntelUnit>();
    return iu && iu->table == ctx.inv.intel_tables.size() - 1 && iu->type == *plat->cha_count_type &&
           iu->box_id >= *count;
  });
  ctx.inv.warnings.push_back(
      fmt::format("{}: the table lists {} CHAs, MSR {:#x} on CPU {} says {}: CHA boxes {} and up "
                  "dropped, as Linux does",
                  table.source, listed, *plat->cha_count_msr, cpu, *count, *count));
}

void add_units(UnitContext& ctx, const DecodedTable& decoded, IntelTable& table) {
  const std::size_t first = ctx.inv.units.size();
  const std::size_t table_index = ctx.inv.intel_tables.size() - 1;
  for (const auto& u : decoded.units) {
    const platform::IntelBoxType* bt = ctx.platform ? ctx.platform->box(u.box_type) : nullptr;
    std::string where = fmt::format("{} unit {} (type {} id {})", table.source, u.index, u.box_type, u.box_id);
    if (bt && std::find(bt->ignored_in.begin(), bt->ignored_in.end(), table.origin) != bt->ignored_in.end()) {
      ctx.inv.warnings.push_back(fmt::format("{}: skipped: {} units of {} tables are ignored on {} ({})", where,
                                             bt->name, table.origin, ctx.platform->name, bt->ignore_note));
      ++table.skipped_units;
      continue;
    }
    IntelUnit iu;
    iu.type = u.box_type;
    iu.box_id = u.box_id;
    iu.table = table_index;
    iu.table_index = u.index;
    std::copy(std::begin(u.raw), std::end(u.raw), iu.raw);
    if (!place_registers(ctx, u, bt, table, where, iu)) {
      ++table.skipped_units;
      continue;
    }
    if (auto clash = register_clash(iu, ctx.clash); !clash.empty()) {
      ctx.inv.warnings.push_back(fmt::format("{}: skipped: {}", where, clash));
      ++table.skipped_units;
      continue;
    }
    PmuUnit pu;
    pu.type_name = bt ? bt->name : "";
    pu.pmu_kind = bt ? bt->pmu_kind : ctx.platform ? ctx.platform->unnamed_pmu : "intel_generic";
    pu.socket = table.socket;
    pu.die = table.die;
    pu.num_counters = u.num_regs;
    pu.counter_width = u.bit_width;
    if (bt && bt->unreliable) pu.notes.push_back("unreliable discovery data: " + *bt->unreliable);
    if (iu.access == RegAccess::Msr && iu.msr_cpu < 0)
      pu.notes.push_back("no CPU of this socket is known for MSR access");
    pu.set_detail(std::move(iu));
    ctx.inv.units.push_back(std::move(pu));
    ++table.valid_units;
  }
  apply_cha_count(ctx, table, first);
}

// Linux names: uncore_<name>_<box_id> when a type has several boxes (box_id, not an index),
// uncore_<name> for a single box, uncore_type_<type>[_<box_id>] when the type has no name.
void name_units(Inventory& inv) {
  std::map<std::uint16_t, std::set<std::uint16_t>> ids;
  for (const auto& u : inv.units)
    if (const auto* iu = u.as<IntelUnit>()) ids[iu->type].insert(iu->box_id);
  for (auto& u : inv.units) {
    const auto* iu = u.as<IntelUnit>();
    if (!iu) continue;
    std::string base = u.type_name.empty() ? fmt::format("uncore_type_{}", iu->type) : "uncore_" + u.type_name;
    u.name = ids[iu->type].size() > 1 ? fmt::format("{}_{}", base, iu->box_id) : base;
  }
}

}  // namespace

unsigned discover_intel(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                        const platform::IntelUncore* platform, Inventory& inventory) {
  unsigned tables = 0;
  auto locations = pci_tables(machine, devices, topology, inventory);
  // A model without discovery tables has uncore boxes at those MSRs (Skylake-SP's PCU box control is
  // 0x710, its first counter control 0x711): what they hold is no table address.
  auto from_msr = platform && platform->kernel_tables() ? std::vector<TableLocation>{}
                                                        : msr_tables(machine, topology, inventory.warnings);
  locations.insert(locations.end(), from_msr.begin(), from_msr.end());
  std::map<int, int> dies_per_socket;
  std::vector<Bdf> intel_functions;
  for (const auto& d : devices)
    if (d.vendor_id == kVendorIntel) intel_functions.push_back(d.bdf);
  const auto iomem = acpi::read_iomem(machine);
  UnitContext ctx{machine, devices, topology, platform, inventory, iomem, intel_functions, {}};
  ctx.clash.iomem = &iomem;
  for (auto& loc : locations) {
    IntelTable table = loc.table;
    table.base = loc.base;
    if (table.origin == "pci") table.die = dies_per_socket[table.socket]++;
    std::unique_ptr<RegisterWindow> window;
    try {
      window = map_table(machine, loc, iomem, intel_functions);
    } catch (const Error& e) {
      inventory.warnings.push_back(
          fmt::format("{}: table at {:#x} cannot be read: {}", table.source, loc.base, e.what()));
      continue;
    }
    table.mapped_through = window->source();
    const RegisterWindow& w = *window;
    auto decoded = intel::decode_table(
        [&w](std::uint64_t off) -> std::optional<std::uint64_t> {
          if (off + 8 > w.size()) return std::nullopt;
          return w.read64(off);
        },
        w.size(), table.source);
    inventory.warnings.insert(inventory.warnings.end(), decoded.warnings.begin(), decoded.warnings.end());
    std::copy(std::begin(decoded.global), std::end(decoded.global), table.global);
    table.stride = decoded.stride_bytes;
    table.max_units = decoded.max_units;
    table.access_type = decoded.access_type;
    table.global_ctl = decoded.global_ctl;
    table.skipped_units = decoded.skipped;
    table.empty_records = decoded.empty;
    ++tables;
    ctx.clash = table_extent(machine, loc.base, decoded, table.source, &iomem);
    inventory.intel_tables.push_back(table);
    if (decoded.valid) add_units(ctx, decoded, inventory.intel_tables.back());
  }
  name_units(inventory);
  return tables;
}

}  // namespace pmukit::discovery
