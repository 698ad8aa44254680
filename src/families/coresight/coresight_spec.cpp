// pmukit -- the machine spec's "apmt" section: the ACPI APMT, the CoreSight pages each node points
// at (their ID registers), the platform devices and ACPI devices Linux makes of the nodes and the
// perf PMUs a loaded driver registers (docs/snapshot-format.md).
#include "coresight_spec.h"

#include <fmt/format.h>

#include "pmukit/families/coresight/coresight_regs.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"

namespace pmukit::snapshot::spec {

namespace cs = regs::coresight;

namespace {

// "{i}" -> the copy index, in one pass (linear in the text, whatever it holds).
std::string expand_i(std::string_view s, std::uint64_t i) {
  std::string out, index = std::to_string(i);
  for (std::size_t at = 0; at < s.size();) {
    if (s.compare(at, 3, "{i}") == 0) {
      out += index;
      at += 3;
    } else {
      out += s[at++];
    }
  }
  return out;
}

std::uint8_t apmt_type(const json& j, const std::string& where) {
  static const std::map<std::string, std::uint8_t> kTypes = {
      {"mc", 0}, {"smmu", 1}, {"pcie", 2}, {"acpi", 3}, {"cache", 4}};
  if (j.is_string()) {
    auto it = kTypes.find(j.get<std::string>());
    if (it == kTypes.end()) expected(where, "mc, smmu, pcie, acpi, cache or a number", j);
    return it->second;
  }
  return static_cast<std::uint8_t>(num_in(j, 0xff, where));
}

void put(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void put_text(std::vector<std::uint8_t>& b, std::size_t at, const std::string& s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) b[at + i] = i < s.size() ? static_cast<std::uint8_t>(s[i]) : ' ';
}

// The block's ID registers (CoreSight PMU architecture, page 0), and both pages made to exist
// (base1 0: a single page).
void write_id_registers(Context& ctx, const json& r, std::uint64_t base0, std::uint64_t base1,
                        const std::string& where) {
  if (base0 > (1ull << 52) || base1 > (1ull << 52))
    throw SpecError(fmt::format("{}: base0/base1 beyond the physical address space", where));
  auto word = [&](const char* key) { return static_cast<std::uint32_t>(num_or_in(r, key, 0, 0xffffffff, where)); };
  ctx.builder.write_phys32(base0 + cs::Pmcfgr::offset, word("pmcfgr"));
  ctx.builder.write_phys32(base0 + cs::Pmcr::offset, word("pmcr"));
  ctx.builder.write_phys32(base0 + cs::Pmiidr::offset, word("pmiidr"));
  if (const json* p = opt(r, "pmpidr", where)) {
    std::string pw = key_path(where, "pmpidr");
    auto id = [&](unsigned k) {
      return static_cast<std::uint32_t>(num_in(item(*p, k, pw), 0xffffffff, index_path(pw, k)));
    };
    ctx.builder.write_phys32(base0 + cs::Pmpidr0::offset, id(0));
    ctx.builder.write_phys32(base0 + cs::Pmpidr1::offset, id(1));
    ctx.builder.write_phys32(base0 + cs::Pmpidr2::offset, id(2));
    ctx.builder.write_phys32(base0 + cs::Pmpidr3::offset, id(3));
    ctx.builder.write_phys32(base0 + cs::Pmpidr4::offset, id(4));
  }
  ctx.builder.write_phys32(base0 + cs::kPageBytes - 4, 0);  // the whole page exists
  if (base1) ctx.builder.write_phys32(base1 + cs::kPageBytes - 4, 0);
}

// One APMT node (+ its CoreSight registers, iomem ranges, ACPI device, kernel PMU); `i` is the
// repeat index that {i} and the *_step fields advance by.
void add_apmt_node(Context& ctx, const json& n, std::uint64_t i, std::vector<std::uint8_t>& table,
                   const std::string& where) {
  auto step = [&](const char* key, std::uint64_t fallback, std::uint64_t base) {
    std::uint64_t s = num_or(n, key, fallback, where);
    if (s && i > (UINT64_MAX - base) / s) throw SpecError(fmt::format("{}.{}: copy {} overflows", where, key, i));
    return base + i * s;
  };
  std::uint64_t id = step("id_step", 1, num_in(need(n, "id", where), 0xffffffff, key_path(where, "id")));
  std::uint8_t type = apmt_type(need(n, "type", where), key_path(where, "type"));
  std::uint8_t flags = static_cast<std::uint8_t>(num_or_in(n, "flags", 0, 0xff, where));
  if (flag_or(n, "dual_page", false, where)) flags |= 1;
  if (flag_or(n, "container", false, where)) flags |= 2;
  if (flag_or(n, "atomic", false, where)) flags |= 4;
  std::uint64_t base0 = step("base_step", 0, num(need(n, "base0", where), key_path(where, "base0")));
  std::uint64_t base1 =
      opt(n, "base1", where) ? step("base_step", 0, num(n["base1"], key_path(where, "base1"))) : base0;
  std::uint64_t primary = num_or(n, "inst_primary", 0, where);
  std::uint64_t secondary = step("uid_step", 0, num_or_in(n, "inst_secondary", 0, 0xffffffff, where));
  std::string hid = opt(n, "hid", where) ? spec::name(n["hid"], key_path(where, "hid")) : "";
  if (!hid.empty()) {
    if (hid.size() > 8) throw SpecError(where + ".hid: longer than 8 characters");
    primary = 0;
    for (std::size_t k = 0; k < hid.size(); ++k)
      primary |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(hid[k])) << (8 * k);
  }
  std::uint64_t affinity = step("proc_affinity_step", 0, num_or_in(n, "proc_affinity", 0, 0xffffffff, where));
  std::size_t at = table.size();
  table.resize(at + 56, 0);
  put(table, at + 0, num_or_in(n, "length", 56, 0xffff, where), 2);
  put(table, at + 2, flags, 1);
  put(table, at + 3, type, 1);
  put(table, at + 4, id, 4);
  put(table, at + 8, primary, 8);
  put(table, at + 16, secondary, 4);
  put(table, at + 20, base0, 8);
  put(table, at + 28, base1, 8);
  put(table, at + 36, num_or_in(n, "irq", 0, 0xffffffff, where), 4);
  put(table, at + 44, num_or_in(n, "irq_flags", 0, 0xffffffff, where), 4);
  put(table, at + 48, affinity, 4);
  put(table, at + 52, num_or_in(n, "impl_id", 0, 0xffffffff, where), 4);
  if (const json* r = opt(n, "registers", where))
    write_id_registers(ctx, *r, base0, (flags & 1) ? base1 : 0, key_path(where, "registers"));
  // Linux's APMT code makes platform device arm-cs-arch-pmu.<id> with one resource per page.
  std::string pdev = fmt::format("arm-cs-arch-pmu.{}", id);
  add_iomem(ctx, base0, cs::kPageBytes, pdev);
  if (flags & 1) add_iomem(ctx, base1, cs::kPageBytes, pdev);
  if (!hid.empty() && flag_or(n, "acpi_device", false, where)) {
    ensure_acpi_root(ctx);
    add_acpi_device(ctx, std::string(kAcpiRoot), hid, std::to_string(secondary),
                    expand_i(str_or(n, "acpi_path", "", where), i), 15);
  }
  if (opt(n, "kernel_pmu", where)) {
    std::string pmu = spec::name(json(expand_i(str(n, "kernel_pmu", where), i)), key_path(where, "kernel_pmu"));
    add_kernel_pmu(ctx, "/sys/devices/platform/" + pdev, pmu, next_pmu_type(ctx),
                   json{{"cpumask", str_or(n, "cpumask", "0", where)}}, key_path(where, "cpumask"));
  }
}

}  // namespace

void write_apmt(const json& section, Context& ctx) {
  std::string where = "apmt";
  std::vector<std::uint8_t> table(36, 0);
  put_text(table, 0, "APMT", 4);
  table[8] = static_cast<std::uint8_t>(num_or_in(section, "revision", 0, 0xff, where));
  put_text(table, 10, str_or(section, "oem_id", "PMUKIT", where), 6);
  put_text(table, 16, str_or(section, "oem_table_id", "SYNTHETC", where), 8);
  put(table, 24, num_or_in(section, "oem_revision", 1, 0xffffffff, where), 4);
  put_text(table, 28, str_or(section, "creator_id", "PMUK", where), 4);
  put(table, 32, num_or_in(section, "creator_revision", 1, 0xffffffff, where), 4);
  const json& nodes = list(section, "nodes", where);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    std::string nw = index_path(key_path(where, "nodes"), k);
    std::uint64_t count = num_or(nodes[k], "repeat", 1, nw);
    // The table pmukit reads holds at most limits::kApmtNodes nodes: a spec may not write more.
    if (count > limits::kApmtNodes || ctx.apmt_nodes + count > limits::kApmtNodes)
      throw SpecError(
          fmt::format("{}.repeat: {} more nodes make more than {} APMT nodes", nw, count, limits::kApmtNodes));
    ctx.apmt_nodes += count;
    for (std::uint64_t i = 0; i < count; ++i) add_apmt_node(ctx, nodes[k], i, table, nw);
  }
  put(table, 4, table.size(), 4);
  unsigned sum = 0;
  for (auto b : table) sum += b;
  table[9] = static_cast<std::uint8_t>(0x100 - (sum & 0xff));
  if (flag_or(section, "bad_checksum", false, where)) table[9] ^= 0x5a;
  ctx.builder.add_acpi_table("APMT", table);
}

}  // namespace pmukit::snapshot::spec
