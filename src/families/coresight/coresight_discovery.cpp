// pmukit -- CoreSight PMU discovery through the APMT (Linux drivers/acpi/arm64/apmt.c,
// drivers/perf/arm_cspmu/arm_cspmu.c and its nvidia/ampere backends).
#include "pmukit/families/coresight/coresight_discovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "pmukit/access/machine.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/acpi/apmt.h"
#include "pmukit/discovery/kernel_pmus.h"
#include "pmukit/discovery/region_proof.h"
#include "pmukit/discovery/unit_helpers.h"
#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/families/coresight/coresight_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::discovery {

namespace cs = regs::coresight;

namespace {

struct NodeContext {
  Machine& machine;
  const Topology& topo;
  const acpi::Processors& procs;
  const KernelPmus& kernel;
  const platform::CoreSightTable& table;
  const platform::Database& db;
  const acpi::Iomem& iomem;  // the second source for each page (region_proof.h)
  Inventory& inv;
  std::map<std::string, unsigned> index;  // per name pattern (and node type): probe order
};

// Associated CPUs (arm_cspmu_get_cpus): the processor with this ACPI UID, or every CPU below the
// processor container with this UID.
std::vector<int> associated_cpus(const NodeContext& ctx, const acpi::ApmtNode& n) {
  if (n.affinity_container()) {
    auto it = ctx.procs.container_cpus.find(n.proc_affinity);
    return it == ctx.procs.container_cpus.end() ? std::vector<int>{} : it->second;
  }
  auto it = ctx.procs.uid_to_cpu.find(n.proc_affinity);
  return it == ctx.procs.uid_to_cpu.end() ? std::vector<int>{} : std::vector<int>{it->second};
}

// The APMT node's own fields.
CoreSightUnit unit_of_node(const acpi::ApmtNode& n) {
  CoreSightUnit cu;
  cu.base0 = n.base0;
  cu.dual_page = n.dual_page();
  cu.base1 = n.dual_page() ? n.base1 : n.base0;
  cu.atomic64 = n.atomic64();
  cu.apmt_id = n.id;
  cu.apmt_type = n.type;
  cu.apmt_flags = n.flags;
  cu.apmt_inst_primary = n.inst_primary;
  cu.apmt_inst_secondary = n.inst_secondary;
  cu.apmt_proc_affinity = n.proc_affinity;
  cu.apmt_impl_id = n.impl_id;
  cu.platform_device = n.platform_device();
  if (n.type == static_cast<std::uint8_t>(acpi::ApmtType::Acpi))
    cu.acpi_device = fmt::format("{}:{}", acpi::printable(n.acpi_hid()), n.inst_secondary);
  return cu;
}

// Page 0's ID registers. Discovery only reads: page 0 is mapped PROT_READ, page 1 only to prove
// it is reachable. Throws Error when a page cannot be mapped.
void read_id_registers(NodeContext& ctx, const acpi::ApmtNode& n, CoreSightUnit& cu) {
  auto page0 = ctx.machine.memory().map(n.base0, cs::kPageBytes, false);
  cu.mapped_through = page0->source();
  cu.pmcfgr = read_register<cs::Pmcfgr>(*page0);
  cu.pmcr = read_register<cs::Pmcr>(*page0);
  cu.pmiidr_register = read_register<cs::Pmiidr>(*page0);
  cu.pmpidr = {read_register<cs::Pmpidr0>(*page0), read_register<cs::Pmpidr1>(*page0),
               read_register<cs::Pmpidr2>(*page0), read_register<cs::Pmpidr3>(*page0),
               read_register<cs::Pmpidr4>(*page0)};
  if (n.dual_page()) ctx.machine.memory().map(n.base1, cs::kPageBytes, false);
}

// Effective PMIIDR, in the kernel's order of precedence, and the product it names.
platform::CoreSightTable::Match identify(NodeContext& ctx, const acpi::ApmtNode& n, CoreSightUnit& cu) {
  if (n.impl_id) {
    cu.pmiidr = RegValue<cs::Pmiidr>{n.impl_id};  // the APMT gives it in PMIIDR's format
    cu.pmiidr_source = "APMT impl_id";
  } else if (cu.pmiidr_register.raw) {
    cu.pmiidr = cu.pmiidr_register;
    cu.pmiidr_source = "PMIIDR";
  } else {
    cu.pmiidr = cs::pmiidr_from_pmpidr(cu.pmpidr);
    cu.pmiidr_source = "PMPIDR";
  }
  auto match = ctx.table.match(static_cast<std::uint32_t>(cu.pmiidr.raw));
  auto implementer = static_cast<std::uint16_t>(cs::Pmiidr::Implementer::get(cu.pmiidr));
  cu.implementer = match.implementer ? match.implementer->name : ctx.table.implementer_name(implementer);
  cu.product = match.product->product;
  cu.backend = match.product->pmu_kind;
  cu.kernel_module = match.implementer ? match.implementer->kernel_module : ctx.table.generic_module;
  cu.has_cycle_counter = cs::Pmcfgr::Cc::get(cu.pmcfgr);
  cu.cycle_counter_index = cs::kCycleCounter;
  return match;
}

// Socket from the first associated CPU's package; the name's <socket> is its NUMA node.
void place_socket(NodeContext& ctx, const acpi::ApmtNode& n, CoreSightUnit& cu, PmuUnit& pu,
                  std::map<std::string, std::string>& fields) {
  cu.cpus = associated_cpus(ctx, n);
  if (cu.cpus.empty()) {
    pu.notes.push_back(fmt::format("{} UID {} matches no ACPI processor bound to a CPU: socket unknown",
                                   n.affinity_container() ? "processor container" : "processor", n.proc_affinity));
    fields["socket"] = "?";
    return;
  }
  int cpu = cu.cpus.front();
  cu.numa_node = node_of_cpu(ctx.topo, cpu);
  if (auto it = ctx.topo.cpus.find(cpu); it != ctx.topo.cpus.end()) pu.socket = it->second.package;
  // The kernel's <socket> is cpu_to_node(first associated CPU), a NUMA node.
  fields["socket"] = cu.numa_node >= 0 ? std::to_string(cu.numa_node) : "?";
  if (cu.numa_node < 0) pu.notes.push_back(fmt::format("CPU {} is in no NUMA node: the name's socket is unknown", cpu));
}

// Linux reads the RC# from the ACPI device's _DSD "instance_id", which sysfs does not export: it
// is read from the name the kernel registered, when there is one.
void find_rc(CoreSightUnit& cu, PmuUnit& pu, std::map<std::string, std::string>& fields) {
  auto at = cu.kernel_pmu.rfind("_rc_");
  auto rc = at == std::string::npos ? std::nullopt : parse_u64(std::string_view(cu.kernel_pmu).substr(at + 4));
  if (rc) {
    cu.rc = static_cast<int>(*rc);
    cu.rc_source = fmt::format("kernel PMU {} under {}", cu.kernel_pmu, cu.platform_device);
    fields["rc"] = std::to_string(*rc);
    return;
  }
  fields["rc"] = "?";
  pu.notes.push_back(fmt::format("RC# unknown: Linux takes it from _DSD \"instance_id\" of ACPI device {}, which is "
                                 "not exported to userspace; with {} loaded the PMU appears in "
                                 "/sys/bus/event_source/devices under {} and pmukit reads it from there",
                                 cu.acpi_device.empty() ? "(none: node is not ACPI type)" : cu.acpi_device,
                                 cu.kernel_module, cu.platform_device));
}

// The kernel's name: the product's pattern with the node's fields.
std::string kernel_name(NodeContext& ctx, const acpi::ApmtNode& n, const platform::CoreSightTable::Match& match,
                        const std::string& type_tag, std::map<std::string, std::string>& fields) {
  const auto& product = *match.product;
  std::string pattern = product.name_pattern;
  if (!match.implementer && n.type == static_cast<std::uint8_t>(acpi::ApmtType::Acpi))
    pattern = ctx.table.generic_acpi_pattern;
  if (product.needs("{index}")) {
    // arm_cspmu counts per node type; the NVIDIA and Ampere catch-alls count across their PMUs.
    std::string key = match.implementer ? pattern : pattern + "/" + type_tag;
    fields["index"] = std::to_string(ctx.index[key]++);
  }
  return platform::expand_pattern(pattern, fields);
}

void add_quirk_notes(const acpi::ApmtNode& n, const CoreSightUnit& cu, const platform::CoreSightTable::Match& match,
                     PmuUnit& pu) {
  if (cu.pmiidr_source == "PMPIDR") pu.notes.push_back("PMIIDR reads 0: identity rebuilt from PMPIDR0-4");
  if (n.impl_id && cu.pmiidr_register.raw && n.impl_id != cu.pmiidr_register.raw)
    pu.notes.push_back(
        fmt::format("APMT impl_id {:#010x} overrides PMIIDR {:#010x}", n.impl_id, cu.pmiidr_register.raw));
  if (pu.counter_width > 32 && !cu.atomic64)
    pu.notes.push_back("64-bit counters without the APMT ATOMIC flag: read hi-lo-hi with 32-bit accesses");
  if (!match.exact && match.implementer)
    pu.notes.push_back(fmt::format("{} product {:#05x} is not in the kernel's table: generic {} PMU", cu.implementer,
                                   cs::Pmiidr::Product::get(cu.pmiidr), match.implementer->kernel_module));
  if (cu.pmiidr.raw == 0)
    pu.notes.push_back("APMT impl_id, PMIIDR and PMPIDR0-4 are all 0: the implementer is unknown (matches no vendor's "
                       "table): generic CoreSight PMU");
  if (n.type == static_cast<std::uint8_t>(acpi::ApmtType::Acpi) && n.acpi_hid().empty())
    pu.notes.push_back("ACPI-type node with no _HID in its primary instance: it names no ACPI device (the kernel "
                       "still names the PMU with the empty _HID)");
}

// The platform device's name in /proc/iomem: current Linux (apmt.c) gives it the node's identifier,
// arm-cs-arch-pmu.<id>; older kernels (e.g. 6.6) allocated it with PLATFORM_DEVID_AUTO, so it is
// arm-cs-arch-pmu.<N>.auto with N the kernel's own count. Either names the device that holds `base`.
std::vector<std::string> platform_device_names(const acpi::Iomem& iomem, const acpi::ApmtNode& n, std::uint64_t base) {
  const std::string prefix = "arm-cs-arch-pmu.", suffix = ".auto";
  auto is_auto = [&](const std::string& name) {
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
      return false;
    auto digits = std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::vector<std::string> names;
  for (const auto& r : iomem.ranges)
    if (r.start <= base && base <= r.end && (r.name == n.platform_device() || is_auto(r.name))) names.push_back(r.name);
  if (names.empty()) names.push_back(n.platform_device());  // named in the refusal
  return names;
}

// The APMT says where the pages are; the kernel's platform device holds them as its resources
// (Linux apmt.c), which /proc/iomem lists under its name: both, or no mapping. Gives the name that
// proved page 0, the device the kernel's PMU hangs under.
std::optional<std::string> pages_proven(NodeContext& ctx, const acpi::ApmtNode& n, const std::string& where) {
  std::string proven;
  for (auto [name, base] : {std::pair{"page 0", n.base0}, std::pair{"page 1", n.dual_page() ? n.base1 : n.base0}}) {
    auto names = platform_device_names(ctx.iomem, n, base);
    if (auto why = platform_region_refusal(ctx.machine, ctx.iomem, names, base, cs::kPageBytes)) {
      ctx.inv.warnings.push_back(
          fmt::format("{}: skipped: {} {:#x} not proven, not mapped: {}", where, name, base, *why));
      return std::nullopt;
    }
    if (proven.empty()) proven = names.front();
  }
  return proven;
}

bool add_node(NodeContext& ctx, const acpi::ApmtNode& n) {
  std::string where = fmt::format("APMT {}", n.where());
  if (!n.known_type()) {
    ctx.inv.warnings.push_back(fmt::format("{}: skipped: node type {} is unknown", where, n.type));
    return false;
  }
  // Each page of a CoreSight PMU is a 4 KB frame (ARM IHI 0091 "the PMU occupies one or two 4KB
  // pages"); a base that is not page-aligned, or a page that wraps, is not one to map.
  for (auto [name, base] : {std::pair{"base0", n.base0}, std::pair{"base1", n.dual_page() ? n.base1 : n.base0}}) {
    if (base % cs::kPageBytes || base > UINT64_MAX - cs::kPageBytes) {
      ctx.inv.warnings.push_back(
          fmt::format("{}: skipped: {} {:#x} is not a 4 KiB-aligned page address", where, name, base));
      return false;
    }
  }
  auto platform_device = pages_proven(ctx, n, where);
  if (!platform_device) return false;
  CoreSightUnit cu = unit_of_node(n);
  cu.platform_device = *platform_device;
  try {
    read_id_registers(ctx, n, cu);
  } catch (const Error& e) {
    ctx.inv.warnings.push_back(fmt::format("{}: skipped: {}", where, e.what()));
    return false;
  }
  auto match = identify(ctx, n, cu);
  const auto& product = *match.product;
  PmuUnit pu;
  pu.num_counters = static_cast<unsigned>(cs::Pmcfgr::N::get(cu.pmcfgr)) + 1;
  pu.counter_width = static_cast<unsigned>(cs::Pmcfgr::Size::get(cu.pmcfgr)) + 1;
  pu.pmu_kind = product.pmu_kind;
  std::string type_tag(acpi::apmt_type_tag(n.type));
  pu.type_name = match.implementer ? product.type_name : type_tag;
  pu.filters = filters_of(ctx.db.pmu_kind(product.pmu_kind));
  if (!product.note.empty()) pu.notes.push_back(product.note);
  std::map<std::string, std::string> fields{
      {"type", type_tag}, {"hid", acpi::printable(n.acpi_hid())}, {"uid", std::to_string(n.inst_secondary)}};
  place_socket(ctx, n, cu, pu, fields);
  auto kernel = ctx.kernel.by_parent.find(cu.platform_device);
  if (kernel != ctx.kernel.by_parent.end()) cu.kernel_pmu = kernel->second;
  if (product.needs("{rc}")) find_rc(cu, pu, fields);
  pu.name = kernel_name(ctx, n, match, type_tag, fields);
  if (!cu.kernel_pmu.empty() && cu.kernel_pmu != pu.name)
    ctx.inv.warnings.push_back(
        fmt::format("{}: the kernel registered it as {}, pmukit names it {}", where, cu.kernel_pmu, pu.name));
  add_quirk_notes(n, cu, match, pu);
  pu.set_detail(std::move(cu));
  ctx.inv.units.push_back(std::move(pu));
  return true;
}

}  // namespace

unsigned discover_coresight(Machine& machine, const Topology& topology,
                            const std::vector<acpi::AcpiDevice>& acpi_devices, Inventory& inv) {
  unsigned nodes = 0;
  const auto& db = platform::Database::builtin();
  std::optional<std::vector<std::uint8_t>> bytes;
  auto file = (machine.param("acpi.path") / "APMT").string();
  try {
    bytes = acpi::read_table(machine, "APMT");
  } catch (const Error& e) {
    inv.warnings.push_back(fmt::format("{} (CoreSight PMUs cannot be listed without it)", e.what()));
    return nodes;
  }
  if (!bytes) return nodes;
  const auto& soc = db.soc(platform::SocSection::CoreSight);
  if (!soc.coresight) return nodes;  // asked only now: without an APMT nothing needs the SoC data
  acpi::Apmt apmt;
  try {
    apmt = acpi::parse_apmt(*bytes, file);
  } catch (const Error& e) {
    inv.warnings.push_back(fmt::format("{}: APMT not used", e.what()));
    return nodes;
  }
  inv.apmt = ApmtSummary{file,
                         apmt.header.revision,
                         static_cast<unsigned>(apmt.nodes.size()),
                         apmt.checksum_ok(),
                         acpi::printable(apmt.header.oem_id),
                         acpi::printable(apmt.header.oem_table_id)};
  for (auto& w : apmt.all_warnings()) inv.warnings.push_back(std::move(w));
  auto procs = acpi::processors(acpi_devices);
  auto kernel = read_kernel_pmus(machine);
  auto iomem = acpi::read_iomem(machine);
  NodeContext ctx{machine, topology, procs, kernel, *soc.coresight, db, iomem, inv, {}};
  for (const auto& n : apmt.nodes) nodes += add_node(ctx, n) ? 1 : 0;
  return nodes;
}

}  // namespace pmukit::discovery
