// pmukit -- register I/O for PMU drivers: one address space per access kind, and a guard that
// lets a write through only to a register of a discovered unit.
//
// Safety rules (DEVELOPERS: "never write a register outside a discovered PMU block; restore what
// you change"): drivers declare every register their unit owns; the guard refuses any other write;
// the journal saves every owned register before the first write so restore() can put the whole
// unit back, including registers changed as a side effect (a box reset clears its counters).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/access/bdf.h"

namespace pmukit {
class Machine;
class RegisterWindow;
}  // namespace pmukit

namespace pmukit::pmu {

enum class Space : std::uint8_t { Msr, Mmio, PciConfig };

// One register: where it lives and how wide an access is.
struct Reg {
  Space space = Space::Mmio;
  std::uint64_t addr = 0;   // MSR number, physical address, or config-space offset
  std::uint32_t where = 0;  // MSR: the CPU whose msr device reaches it; PCI: domain<<16|bus<<8|devfn
  std::uint8_t width = 32;  // access width in bits: 32 or 64 (MSRs are always 64)
  bool split64 = false;     // a 64-bit register read hi-lo-hi and written lo then hi

  auto operator<=>(const Reg& o) const { return std::tie(space, where, addr) <=> std::tie(o.space, o.where, o.addr); }
  bool operator==(const Reg& o) const { return space == o.space && where == o.where && addr == o.addr; }
  std::string str() const;  // "MMIO 0xc8aa2840", "MSR 0x2002 (CPU 0)", "PCI 0000:7e:0c.0 @0x468"
};

Reg mmio32(std::uint64_t addr);
Reg mmio64(std::uint64_t addr, bool atomic);
Reg msr(std::uint32_t cpu, std::uint64_t addr);
Reg pci32(const Bdf& bdf, std::uint64_t offset);
Reg pci64(const Bdf& bdf, std::uint64_t offset);  // two dwords: low at offset, high at offset + 4

// Raw access to the machine's registers. MMIO registers are reached through blocks the drivers
// declare (an Intel box's 16 KiB, a CoreSight page): one mapping per block, never one per register.
class RegisterIo {
 public:
  explicit RegisterIo(Machine& machine);
  ~RegisterIo();
  RegisterIo(const RegisterIo&) = delete;
  RegisterIo& operator=(const RegisterIo&) = delete;

  std::uint64_t read(const Reg& r);
  void write(const Reg& r, std::uint64_t value);
  // Maps [base, base + size) writable now, so a permission problem surfaces before anything is
  // written. Overlapping blocks share the first mapping that covers a register.
  void map_block(std::uint64_t base, std::uint64_t size);
  std::size_t blocks() const { return windows_.size(); }
  Machine& machine() { return machine_; }
  // Lets the side effects of the writes so far take place (a box reset, a counter clear) before
  // the next access. Hardware applies them at once, so this is a no-op there; pmu-sim, which
  // watches registers between steps, installs a hook that waits for one step.
  void barrier() {
    if (barrier_hook_) barrier_hook_();
  }
  void set_barrier_hook(std::function<void()> hook) { barrier_hook_ = std::move(hook); }
  // pmu-sim only: reach snapshot MSR files through one mapping each instead of a pread per access
  // (the simulator touches every control register of every unit at each step).
  void map_msr_files(bool on) { map_msr_files_ = on; }

 private:
  RegisterWindow& window_for(const Reg& r);

  Machine& machine_;
  RegisterWindow* msr_window(std::uint32_t cpu);

  std::vector<std::unique_ptr<RegisterWindow>> windows_;
  std::map<std::uint32_t, std::unique_ptr<RegisterWindow>> msr_windows_;
  std::function<void()> barrier_hook_;
  bool map_msr_files_ = false;
};

// The set of registers drivers may write, and the original value of each.
class WriteGuard {
 public:
  explicit WriteGuard(RegisterIo& io) : io_(io) {}

  // Declares registers a unit owns and saves their current values (read once, before any write).
  void own(const std::vector<Reg>& regs);
  bool owns(const Reg& r) const { return saved_.count(r) != 0; }
  std::uint64_t original(const Reg& r) const;

  std::uint64_t read(const Reg& r) { return io_.read(r); }
  // Throws Error without writing when `r` is not owned.
  void write(const Reg& r, std::uint64_t value);
  std::size_t writes() const { return writes_; }
  void barrier() { io_.barrier(); }
  RegisterIo& io() { return io_; }

 private:
  RegisterIo& io_;
  std::map<Reg, std::uint64_t> saved_;
  std::size_t writes_ = 0;
};

}  // namespace pmukit::pmu
