// pmukit -- where an Intel PMON unit's registers must not be.
#include "intel_clash.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/intel/x86_msr.h"

namespace pmukit::discovery::intel {

namespace {

// Physical memory below 1 MiB: real-mode interrupt vectors, BIOS data, legacy video and option
// ROMs. No PMON block lies there.
constexpr std::uint64_t kLegacyEnd = 0x100000;
// A function's standard configuration header (PCI Local Bus 3.0, 6.1): command, status, BARs.
constexpr std::uint64_t kConfigHeaderBytes = 0x40;

// Every register address of the unit, with its width in bytes (MSRs: 1 each).
template <class F>
void each_register(const IntelUnit& iu, F&& f) {
  const auto w = regs::intel::widths(table_access_type(iu.access));
  auto add = [&](std::uint64_t at, unsigned bits) { f(at, iu.access == RegAccess::Msr ? 1u : bits / 8); };
  add(iu.box_ctl, w.box_ctl);
  for (auto a : iu.ctl) add(a, w.ctl);
  for (auto a : iu.ctr) add(a, w.ctr);
  if (iu.status) add(*iu.status, 64);
  if (iu.fixed_ctl) add(*iu.fixed_ctl, w.fixed_ctl);
  if (iu.fixed_ctr) add(*iu.fixed_ctr, w.ctr);
  if (iu.filter) add(*iu.filter, w.filter);
  if (iu.filter_high) add(*iu.filter_high, w.filter);
}

std::string msr_clash(const IntelUnit& iu) {
  std::string out;
  each_register(iu, [&](std::uint64_t at, unsigned) {
    if (!out.empty()) return;
    if (const auto* r = regs::x86::architectural_msr(at))
      out = fmt::format("MSR {:#x} is {}, an architectural MSR of every core (Intel SDM Vol. 4, Table 2-2), not an "
                        "uncore PMON register",
                        at, r->name);
  });
  return out;
}

std::string mmio_clash(const IntelUnit& iu, const ClashContext& ctx) {
  std::uint64_t first = ~0ull, last = 0;
  each_register(iu, [&](std::uint64_t at, unsigned bytes) {
    first = std::min(first, at);
    last = std::max(last, at + bytes - 1);
  });
  if (first < kLegacyEnd)
    return fmt::format("physical {:#x} is in the first MiB of memory (interrupt vectors, BIOS data, legacy video "
                       "and ROMs), where no PMON block lies",
                       first);
  if (ctx.table_last && first <= ctx.table_last && last >= ctx.table_first)
    return fmt::format("registers {:#x}-{:#x} lie inside its own discovery table's BAR ({}, {:#x}-{:#x}): "
                       "programming them would write the table",
                       first, last, ctx.table_name, ctx.table_first, ctx.table_last);
  if (ctx.iomem && ctx.iomem->readable && !ctx.iomem->addresses_hidden)
    for (const auto& r : ctx.iomem->ranges)
      if (r.name == "System RAM" && first <= r.end && last >= r.start)
        return fmt::format("registers {:#x}-{:#x} are System RAM ({:#x}-{:#x} in /proc/iomem)", first, last, r.start,
                           r.end);
  return "";
}

std::string config_clash(const IntelUnit& iu) {
  std::string out;
  each_register(iu, [&](std::uint64_t at, unsigned) {
    if (out.empty() && at < kConfigHeaderBytes)
      out = fmt::format("config offset {:#x} of {} is in its standard header (command, status, BARs), not a PMON "
                        "register",
                        at, iu.pci_device ? iu.pci_device->str() : "the device");
  });
  return out;
}

}  // namespace

std::string register_clash(const IntelUnit& iu, const ClashContext& ctx) {
  switch (iu.access) {
  case RegAccess::Msr:
    return msr_clash(iu);
  case RegAccess::Mmio:
    return mmio_clash(iu, ctx);
  case RegAccess::PciConfig:
    return config_clash(iu);
  }
  return "";
}

}  // namespace pmukit::discovery::intel
