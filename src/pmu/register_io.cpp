// pmukit -- register I/O, MMIO window cache and the write guard.
#include "pmukit/pmu/register_io.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {
Bdf bdf_of(std::uint32_t where) {
  return Bdf{where >> 16, static_cast<std::uint8_t>(where >> 8), static_cast<std::uint8_t>((where >> 3) & 0x1f),
             static_cast<std::uint8_t>(where & 7)};
}
std::uint32_t where_of(const Bdf& b) {
  return b.domain << 16 | static_cast<std::uint32_t>(b.bus) << 8 | b.devfn();
}
}  // namespace

std::string Reg::str() const {
  switch (space) {
  case Space::Msr:
    return fmt::format("MSR {:#x} (CPU {})", addr, where);
  case Space::Mmio:
    return fmt::format("MMIO {:#x}", addr);
  case Space::PciConfig:
    return fmt::format("PCI {} @{:#x}", bdf_of(where).str(), addr);
  }
  return "?";
}

Reg mmio32(std::uint64_t addr) {
  return Reg{Space::Mmio, addr, 0, 32, false};
}
Reg mmio64(std::uint64_t addr, bool atomic) {
  return Reg{Space::Mmio, addr, 0, 64, !atomic};
}
Reg msr(std::uint32_t cpu, std::uint64_t addr) {
  return Reg{Space::Msr, addr, cpu, 64, false};
}
Reg pci32(const Bdf& bdf, std::uint64_t offset) {
  return Reg{Space::PciConfig, offset, where_of(bdf), 32, false};
}
Reg pci64(const Bdf& bdf, std::uint64_t offset) {
  return Reg{Space::PciConfig, offset, where_of(bdf), 64, true};
}

RegisterIo::RegisterIo(Machine& machine) : machine_(machine) {}
RegisterIo::~RegisterIo() = default;

RegisterWindow& RegisterIo::window_for(const Reg& r) {
  // Windows are sorted by base: the candidate is the last one starting at or below the address.
  // This is on the sampling path, once per counter read.
  auto it =
      std::upper_bound(windows_.begin(), windows_.end(), r.addr,
                       [](std::uint64_t a, const std::unique_ptr<RegisterWindow>& w) { return a < w->phys_base(); });
  while (it != windows_.begin()) {
    --it;
    if ((*it)->contains(r.addr, r.width / 8u)) return **it;
    if ((*it)->phys_base() + (*it)->size() <= r.addr && it != windows_.begin() &&
        (*(it - 1))->phys_base() + (*(it - 1))->size() <= r.addr)
      break;
  }
  throw Error(fmt::format("{}: outside every mapped PMU block", r.str()));
}

void RegisterIo::map_block(std::uint64_t base, std::uint64_t size) {
  for (const auto& w : windows_)
    if (w->contains(base, size)) return;
  auto w = machine_.memory().map(base, size, true);
  auto at =
      std::upper_bound(windows_.begin(), windows_.end(), base,
                       [](std::uint64_t a, const std::unique_ptr<RegisterWindow>& x) { return a < x->phys_base(); });
  windows_.insert(at, std::move(w));
}

RegisterWindow* RegisterIo::msr_window(std::uint32_t cpu) {
  auto it = msr_windows_.find(cpu);
  if (it != msr_windows_.end()) return it->second.get();
  MsrDevice& dev = machine_.msr(static_cast<int>(cpu));
  std::unique_ptr<RegisterWindow> w;
  std::error_code ec;
  if (dev.is_snapshot_file()) {
    auto size = std::filesystem::file_size(dev.path(), ec);
    if (!ec && size >= 8) w = std::make_unique<RegisterWindow>(dev.path().string(), 0, size & ~7ull, 0, true);
  }
  return msr_windows_.emplace(cpu, std::move(w)).first->second.get();
}

std::uint64_t RegisterIo::read(const Reg& r) {
  switch (r.space) {
  case Space::Msr:
    if (map_msr_files_)
      if (auto* w = msr_window(r.where); w && r.addr * 8 + 8 <= w->size()) return w->read64(r.addr * 8);
    return machine_.msr(static_cast<int>(r.where)).read(static_cast<std::uint32_t>(r.addr));
  case Space::Mmio: {
    RegisterWindow& w = window_for(r);
    std::uint64_t off = r.addr - w.phys_base();
    if (r.width == 32) return w.read32(off);
    return r.split64 ? w.read64_hilohi(off) : w.read64(off);
  }
  case Space::PciConfig: {
    PciConfig& cfg = machine_.pci().config(bdf_of(r.where));
    if (r.width == 32) return cfg.read32_or_throw(static_cast<unsigned>(r.addr));
    // hi-lo-hi: a 64-bit counter in two config dwords can carry between the two reads.
    std::uint32_t hi = cfg.read32_or_throw(static_cast<unsigned>(r.addr + 4));
    for (int i = 0; i < 1000; ++i) {
      std::uint32_t lo = cfg.read32_or_throw(static_cast<unsigned>(r.addr));
      std::uint32_t hi2 = cfg.read32_or_throw(static_cast<unsigned>(r.addr + 4));
      if (hi2 == hi) return static_cast<std::uint64_t>(hi) << 32 | lo;
      hi = hi2;
    }
    throw Error(fmt::format("{}: 64-bit counter kept changing its high word", r.str()));
  }
  }
  return 0;
}

void RegisterIo::write(const Reg& r, std::uint64_t value) {
  switch (r.space) {
  case Space::Msr:
    if (map_msr_files_)
      if (auto* w = msr_window(r.where); w && r.addr * 8 + 8 <= w->size()) return w->write64(r.addr * 8, value);
    return machine_.msr(static_cast<int>(r.where)).write(static_cast<std::uint32_t>(r.addr), value);
  case Space::Mmio: {
    RegisterWindow& w = window_for(r);
    std::uint64_t off = r.addr - w.phys_base();
    if (r.width == 32) return w.write32(off, static_cast<std::uint32_t>(value));
    return r.split64 ? w.write64_lohi(off, value) : w.write64(off, value);
  }
  case Space::PciConfig: {
    PciConfig& cfg = machine_.pci().config(bdf_of(r.where));
    if (r.width == 64) {
      // SPR PCI boxes take the high dword first (Linux spr_uncore_pci_enable_event).
      cfg.write32(static_cast<unsigned>(r.addr + 4), static_cast<std::uint32_t>(value >> 32));
    }
    return cfg.write32(static_cast<unsigned>(r.addr), static_cast<std::uint32_t>(value));
  }
  }
}

void WriteGuard::own(const std::vector<Reg>& regs) {
  for (const auto& r : regs)
    if (!saved_.count(r)) saved_.emplace(r, io_.read(r));
}

std::uint64_t WriteGuard::original(const Reg& r) const {
  auto it = saved_.find(r);
  if (it == saved_.end()) throw Error(fmt::format("{}: not a register of a unit in use", r.str()));
  return it->second;
}

void WriteGuard::write(const Reg& r, std::uint64_t value) {
  if (!owns(r))
    throw Error(
        fmt::format("refused write of {:#x} to {}: not a register of any discovered PMU unit in use", value, r.str()));
  io_.write(r, value);
  ++writes_;
}

}  // namespace pmukit::pmu
