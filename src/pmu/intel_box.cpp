// pmukit -- Intel uncore PMON box driver (SPR and later: generic discovery box controls).
//
// Sequence (Linux uncore_discovery.c init/enable/disable, PCM's resetUnfreeze):
//   box ctl = FRZ; box ctl = FRZ | RST_CTRL | RST_CTRS; counter controls = config | EN;
//   start: box ctl = 0; stop: box ctl = FRZ.
// EN (bit 22) is set on every programmed counter (hardware.md 1.7: PCM sets it; the generic kernel
// path passes config as-is). Controls are 32-bit on MMIO boxes, 64-bit on MSR and PCI boxes.
#include <fmt/format.h>

#include "drivers.h"
#include "pmukit/discovery/intel_discovery_regs.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

using discovery::IntelUnit;
using discovery::RegAccess;
using namespace discovery::intel;

constexpr std::uint64_t kFixedEvent = 0xff;  // UNCORE_FIXED_EVENT: the box's fixed counter

class IntelBoxDriver : public UnitDriver {
 public:
  explicit IntelBoxDriver(const discovery::PmuUnit& unit) : UnitDriver(unit), u_(*unit.as<IntelUnit>()) {
    if (u_.filter) filter_ = reg(*u_.filter, true);
  }

  std::vector<Reg> registers() const override {
    std::vector<Reg> r{box_ctl()};
    for (std::size_t i = 0; i < u_.ctl.size(); ++i) r.push_back(ctl(i)), r.push_back(ctr(i));
    if (u_.fixed_ctl) r.push_back(reg(*u_.fixed_ctl, false)), r.push_back(fixed_ctr());
    if (filter_) r.push_back(*filter_);
    return r;
  }

  std::vector<std::pair<std::uint64_t, std::uint64_t>> mmio_blocks() const override {
    if (u_.access != RegAccess::Mmio) return {};
    std::uint64_t end = u_.box_ctl + 4;
    for (auto a : u_.ctl) end = std::max(end, a + 4);
    for (auto a : u_.ctr) end = std::max(end, a + 8);
    if (u_.fixed_ctr) end = std::max({end, *u_.fixed_ctr + 8, *u_.fixed_ctl + 4});
    return {{u_.box_ctl, end - u_.box_ctl}};
  }

  std::optional<std::string> busy(WriteGuard& g) const override {
    for (std::size_t i = 0; i < u_.ctl.size(); ++i)
      if (auto v = g.read(ctl(i))) return fmt::format("counter control {} is {:#x}", ctl(i).str(), v);
    if (u_.fixed_ctl)
      if (auto v = g.read(reg(*u_.fixed_ctl, false))) return fmt::format("fixed counter control is {:#x}", v);
    return std::nullopt;
  }

  void check(const std::vector<events::EncodedEvent>& events) const override {
    std::size_t general = 0, fixed = 0;
    for (const auto& e : events) {
      if (is_fixed(e)) {
        if (!u_.fixed_ctr)
          throw UsageError(fmt::format("{}: event=0xff selects a fixed counter, and this box has none", unit_.name));
        ++fixed;
        continue;
      }
      ++general;
      bool ctl64 = u_.access != RegAccess::Mmio;
      if (!ctl64 && (e.config >> 32))
        throw UsageError(fmt::format("{}: config {:#x} sets bits above 31 (umask extension), which its 32-bit "
                                     "MMIO counter control cannot hold",
                                     unit_.name, e.config));
      if (e.config1 && !filter_)
        throw UsageError(
            fmt::format("{}: config1 {:#x} needs a filter register this box does not have", unit_.name, e.config1));
    }
    if (general > u_.ctl.size() || fixed > 1)
      throw UsageError(fmt::format("{}: {} events but the box has {} counters{}; count them in separate runs, or "
                                   "use --backend perf, which multiplexes",
                                   unit_.name, events.size(), u_.ctl.size(),
                                   u_.fixed_ctr ? " and 1 fixed counter" : ""));
    std::uint64_t f1 = 0;
    for (const auto& e : events)
      if (e.config1) {
        if (f1 && f1 != e.config1)
          throw UsageError(fmt::format("{}: events ask for different filter values ({:#x}, {:#x}) but the box has one "
                                       "filter register",
                                       unit_.name, f1, e.config1));
        f1 = e.config1;
      }
  }

  void program(WriteGuard& g, const std::vector<events::EncodedEvent>& events) override {
    check(events);
    slots_.clear();
    slot_regs_.clear();
    g.write(box_ctl(), BoxCtlFreeze::put(1));
    g.write(box_ctl(), BoxCtlFreeze::put(1) | BoxCtlResetCtrl::put(1) | BoxCtlResetCtrs::put(1));
    g.barrier();  // the reset clears controls and counters: let it happen before programming them
    std::size_t next = 0;
    for (const auto& e : events) {
      if (is_fixed(e)) {
        g.write(reg(*u_.fixed_ctl, false), CtrCtlEnable::put(1));
        slots_.push_back(-1);
        slot_regs_.push_back(fixed_ctr());
        continue;
      }
      g.write(ctl(next), e.config | CtrCtlEnable::put(1));
      slot_regs_.push_back(ctr(next));
      if (e.config1 && filter_) g.write(*filter_, e.config1 & u_.filter_mask);
      slots_.push_back(static_cast<int>(next++));
    }
    g.barrier();
  }

  void start(WriteGuard& g) override {
    g.write(box_ctl(), 0);
    g.barrier();
  }
  void stop(WriteGuard& g) override {
    g.write(box_ctl(), BoxCtlFreeze::put(1));
    g.barrier();
  }

  void read(WriteGuard& g, std::vector<Reading>& out) override {
    out.resize(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i) out[i] = {g.read(slot_regs_[i]), false};
  }

  unsigned width(std::size_t) const override { return unit_.counter_width; }

  void restore(WriteGuard& g) override {
    // Freeze first so nothing counts while the registers go back, and the box control last.
    g.write(box_ctl(), BoxCtlFreeze::put(1));
    g.barrier();
    for (const auto& r : registers())
      if (!(r == box_ctl())) g.write(r, g.original(r));
    g.write(box_ctl(), g.original(box_ctl()));
    g.barrier();
  }

 private:
  static bool is_fixed(const events::EncodedEvent& e) { return (e.config & 0xff) == kFixedEvent; }

  Reg reg(std::uint64_t addr, bool wide) const {
    switch (u_.access) {
    case RegAccess::Msr:
      return msr(static_cast<std::uint32_t>(u_.msr_cpu), addr);
    case RegAccess::Mmio:
      return wide ? mmio64(addr, true) : mmio32(addr);
    case RegAccess::PciConfig:
      return wide ? pci64(*u_.pci_device, addr) : pci32(*u_.pci_device, addr);
    }
    return {};
  }
  Reg box_ctl() const { return reg(u_.box_ctl, false); }
  Reg ctl(std::size_t i) const { return reg(u_.ctl[i], u_.access == RegAccess::PciConfig); }
  Reg ctr(std::size_t i) const { return reg(u_.ctr[i], true); }
  Reg fixed_ctr() const { return reg(*u_.fixed_ctr, true); }

  const IntelUnit& u_;
  std::optional<Reg> filter_;
  std::vector<int> slots_;      // counter index per programmed event; -1 = fixed counter
  std::vector<Reg> slot_regs_;  // the counter register of each programmed event
};

}  // namespace

std::unique_ptr<UnitDriver> make_intel_box(const discovery::PmuUnit& unit) {
  const auto& iu = *unit.as<IntelUnit>();
  if (iu.access == RegAccess::Msr && iu.msr_cpu < 0)
    throw Error(fmt::format("{}: no CPU of socket {} is known to reach its MSRs", unit.name, unit.socket));
  return std::make_unique<IntelBoxDriver>(unit);
}

}  // namespace pmukit::pmu
