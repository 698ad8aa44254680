// pmukit -- register addresses, MMIO window cache, config-space access and the write guard.
#include "pmukit/pmu/register_io.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/pmu/journal.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {
template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;  // clang 14 (the fuzz preset) does not deduce aggregates by itself
}  // namespace

std::uint64_t location(const Address& a) {
  return std::visit(Overload{[](MsrAddress m) -> std::uint64_t { return m.msr; },
                             [](MmioAddress m) -> std::uint64_t { return m.phys; },
                             [](const ConfigAddress& c) -> std::uint64_t { return c.offset; }},
                    a);
}

Address operator+(const Address& a, std::uint32_t bytes) {
  return std::visit(Overload{[&](MsrAddress m) -> Address {
                               return MsrAddress{m.cpu, m.msr + bytes};
                             },
                             [&](MmioAddress m) -> Address { return MmioAddress{m.phys + bytes}; },
                             [&](ConfigAddress c) -> Address {
                               return ConfigAddress{c.bdf, c.offset + bytes};
                             }},
                    a);
}

std::string to_string(const Address& a) {
  return std::visit(
      Overload{[](MsrAddress m) { return fmt::format("MSR {:#x} (CPU {})", m.msr, m.cpu); },
               [](MmioAddress m) { return fmt::format("MMIO {:#x}", m.phys); },
               [](const ConfigAddress& c) { return fmt::format("PCI {} @{:#x}", c.bdf.str(), c.offset); }},
      a);
}

Reg mmio32(std::uint64_t phys) {
  return Reg{MmioAddress{phys}, 32, Load::One, Store::One};
}
Reg mmio64(std::uint64_t phys, bool atomic) {
  return atomic ? Reg{MmioAddress{phys}, 64, Load::One, Store::One}
                : Reg{MmioAddress{phys}, 64, Load::HiLoHi, Store::LoHi};
}
Reg msr(int cpu, std::uint32_t number) {
  return Reg{MsrAddress{cpu, number}, 64, Load::One, Store::One};
}
Reg config32(const Bdf& bdf, std::uint32_t offset) {
  return Reg{ConfigAddress{bdf, offset}, 32, Load::One, Store::One};
}
Reg config64(const Bdf& bdf, std::uint32_t offset) {
  return Reg{ConfigAddress{bdf, offset}, 64, Load::HiLoHi, Store::HiLo};
}

Stores stores_of(const Reg& r, std::uint64_t value) {
  const Access lo{r.at, 32, value & 0xffffffffull}, hi{r.at + 4, 32, value >> 32};
  switch (r.store) {
  case Store::LoHi:
    return {{lo, hi}, 2};
  case Store::HiLo:
    return {{hi, lo}, 2};
  case Store::One:
    break;
  }
  return {{Access{r.at, r.width, r.width == 32 ? value & 0xffffffffull : value}}, 1};
}

RegisterIo::RegisterIo(Machine& machine) : machine_(machine) {}
RegisterIo::~RegisterIo() = default;

RegisterWindow& RegisterIo::window_for(std::uint64_t phys, unsigned bytes) {
  // Windows are sorted by base: the candidate is the last one starting at or below the address.
  auto it =
      std::upper_bound(windows_.begin(), windows_.end(), phys,
                       [](std::uint64_t a, const std::unique_ptr<RegisterWindow>& w) { return a < w->phys_base(); });
  while (it != windows_.begin()) {
    --it;
    if ((*it)->contains(phys, bytes)) return **it;
  }
  throw Error(fmt::format("MMIO {:#x}: outside every mapped PMU block", phys));
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

std::uint64_t RegisterIo::read_config(const ConfigAddress& a, const Reg& r) {
  PciConfig& cfg = machine_.pci().config(a.bdf);
  if (r.width == 32) return cfg.read32_or_throw(a.offset);
  // hi-lo-hi: a 64-bit counter in two config dwords can carry between the two reads.
  std::uint32_t hi = cfg.read32_or_throw(a.offset + 4);
  for (int i = 0; i < kHiLoHiMaxPoll; ++i) {
    std::uint32_t lo = cfg.read32_or_throw(a.offset);
    std::uint32_t hi2 = cfg.read32_or_throw(a.offset + 4);
    if (hi2 == hi) return static_cast<std::uint64_t>(hi) << 32 | lo;
    hi = hi2;
  }
  throw Error(fmt::format("{}: 64-bit counter kept changing its high word", r.str()));
}

std::uint64_t RegisterIo::read(const Reg& r) {
  return std::visit(Overload{[&](MsrAddress m) { return machine_.msr(m.cpu).read(m.msr); },
                             [&](MmioAddress m) -> std::uint64_t {
                               RegisterWindow& w = window_for(m.phys, r.width / 8u);
                               std::uint64_t off = m.phys - w.phys_base();
                               if (r.width == 32) return w.read32(off);
                               return r.load == Load::HiLoHi ? w.read64_hilohi(off) : w.read64(off);
                             },
                             [&](const ConfigAddress& c) { return read_config(c, r); }},
                    r.at);
}

void RegisterIo::store(const Access& a) {
  std::visit(Overload{[&](MsrAddress m) { machine_.msr(m.cpu).write(m.msr, a.value); },
                      [&](MmioAddress m) {
                        RegisterWindow& w = window_for(m.phys, a.width / 8u);
                        std::uint64_t off = m.phys - w.phys_base();
                        if (a.width == 32) return w.write32(off, static_cast<std::uint32_t>(a.value));
                        w.write64(off, a.value);
                      },
                      [&](const ConfigAddress& c) {
                        machine_.pci().config(c.bdf).write32(c.offset, static_cast<std::uint32_t>(a.value));
                      }},
             a.at);
}

void RegisterIo::write(const Reg& r, std::uint64_t value) {
  for (const auto& a : stores_of(r, value)) store(a);
}

void WriteGuard::own(const std::vector<Reg>& regs) {
  for (const auto& r : regs)
    if (!saved_.count(r)) saved_.emplace(r, io_.read(r));
}

std::uint64_t WriteGuard::read_saved(const Reg& r) {
  if (writes_ == 0 && !known_elsewhere_)
    if (auto it = saved_.find(r); it != saved_.end()) return it->second;
  return io_.read(r);
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
  if (trace_)
    for (const auto& a : stores_of(r, value)) trace_->push_back({trace_->size(), a});
  io_.write(r, value);
  if (settle_ && commands_.count(r)) settle_->settle();
  write_point(++writes_);
}

}  // namespace pmukit::pmu
