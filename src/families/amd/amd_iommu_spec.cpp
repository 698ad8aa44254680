// pmukit -- machine-spec section "amd_iommus": AMD IOMMUs as firmware and Linux show them
// (docs/snapshot-format.md). Each entry is one IOMMU:
//   {bdf, id ("1022:1481"), numa_node (0), cap_at (0x40), base, enabled (true), pcsup (true),
//    banks (2), counters (4), iomem (true), iomem_size, writes: [{at, u32}]}
// The PCI function (class 0806h) gets the IOMMU capability at cap_at: header (ID 0Fh, CapType 011b,
// EFRSup), Base Address Low (base[31:14] | enable) and High (base[63:32]) -- AMD IOMMU
// specification 48882. The MMIO region has no BAR: it is in physical memory (dev/mem), with the
// Extended Feature Register at +0x30 (PCSup bit 9), the counter configuration at +0x4000 (banks
// [17:12], counters [10:7]; Linux init_iommu_perf_ctr) and the counter banks from +0x40000, and
// /proc/iomem names it "amd_iommu" over 0x80000 bytes (0x4000 without counters) as Linux
// iommu_map_mmio_space claims it. `writes` are raw dwords at offsets from the base, last.
//
// This writer is the hardware discovery is tested against: its offsets are written here from
// those sources, not taken from discovery's register map.
#include "amd_iommu_spec.h"

#include <fmt/format.h>

namespace pmukit::snapshot::spec {

namespace {

constexpr std::uint64_t kRegionBytes = 0x80000, kRegionBytesNoCounters = 0x4000;

ConfigImage function_config(const json& e, std::uint64_t base, const std::string& where) {
  auto [vendor, device] = pci_id(e.contains("id") ? e["id"] : json("1022:1481"), key_path(where, "id"));
  ConfigImage c(vendor, device, 0x080600);  // base class 08h, subclass 06h: IOMMU
  const auto at = static_cast<std::uint8_t>(num_or_in(e, "cap_at", 0x40, 0xf0, where));
  if (at < 0x40 || at % 4)
    throw SpecError(fmt::format("{}.cap_at: {:#x} is not a standard capability offset", where, at));
  const bool enabled = flag_or(e, "enabled", true, where);
  const std::uint32_t low = static_cast<std::uint32_t>(base & 0xffffc000u) | (enabled ? 1u : 0u);
  const auto high = static_cast<std::uint32_t>(base >> 32);
  // Header bytes 2-3: CapType 011b [18:16], CapRev 1 [23:19], EFRSup [27].
  c.add_std_cap(at, 0x0f,
                {0x0b, 0x08, static_cast<std::uint8_t>(low), static_cast<std::uint8_t>(low >> 8),
                 static_cast<std::uint8_t>(low >> 16), static_cast<std::uint8_t>(low >> 24),
                 static_cast<std::uint8_t>(high), static_cast<std::uint8_t>(high >> 8),
                 static_cast<std::uint8_t>(high >> 16), static_cast<std::uint8_t>(high >> 24)});
  return c;
}

void write_registers(const json& e, std::uint64_t base, bool pcsup, Context& ctx, const std::string& where) {
  const auto banks = num_or_in(e, "banks", 2, 0x3f, where);
  const auto counters = num_or_in(e, "counters", 4, 0xf, where);
  ctx.builder.write_phys32(base + kRegionBytes - 4, 0);  // the whole region exists, counters at 0
  ctx.builder.write_phys64(base + 0x30, pcsup ? std::uint64_t{1} << 9 : 0);
  ctx.builder.write_phys32(base + 0x4000, static_cast<std::uint32_t>(banks << 12 | counters << 7));
  const json& writes = list_or_empty(e, "writes", where);
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const std::string w = index_path(key_path(where, "writes"), i);
    const auto at = num_in(need(writes[i], "at", w), kRegionBytes - 4, key_path(w, "at"));
    if (at % 4) throw SpecError(fmt::format("{}.at: {:#x} is not dword-aligned", w, at));
    ctx.builder.write_phys32(
        base + at, static_cast<std::uint32_t>(num_in(need(writes[i], "u32", w), 0xffffffff, key_path(w, "u32"))));
  }
}

void write_one(const json& e, Context& ctx, const std::string& where) {
  const Bdf b = bdf(need(e, "bdf", where), key_path(where, "bdf"));
  const std::uint64_t base = num(need(e, "base", where), key_path(where, "base"));
  if (base % kRegionBytes || base == 0 || base > (std::uint64_t{1} << 52) - kRegionBytes)
    throw SpecError(fmt::format("{}.base: {:#x} is not a 512 KiB-aligned MMIO base below 2^52", where, base));
  if (ctx.device_node.count(b)) throw SpecError(fmt::format("{}.bdf: {} is written twice", where, b.str()));
  const bool pcsup = flag_or(e, "pcsup", true, where);
  PciDeviceSpec s;
  s.bdf = b;
  s.config = function_config(e, base, where);
  s.numa_node = int_or(e, "numa_node", 0, -1, 1023, where);
  ctx.builder.add_pci_device(s);
  ctx.device_node[b] = s.numa_node;
  write_registers(e, base, pcsup, ctx, where);
  if (flag_or(e, "iomem", true, where))
    add_iomem(ctx, base, num_or_in(e, "iomem_size", pcsup ? kRegionBytes : kRegionBytesNoCounters, kRegionBytes, where),
              "amd_iommu");
}

}  // namespace

void write_amd_iommus(const json& section, Context& ctx) {
  if (!section.is_array()) expected("amd_iommus", "an array", section);
  for (std::size_t i = 0; i < section.size(); ++i)
    write_one(item(section, i, "amd_iommus"), ctx, index_path("amd_iommus", i));
}

}  // namespace pmukit::snapshot::spec
