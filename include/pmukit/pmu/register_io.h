// pmukit -- register I/O for PMU drivers: where a register is (an MSR of a CPU, a physical address,
// a config-space offset of a device), how it is read and written, and a guard that lets a write
// through only to a register of a unit in use.
//
// Safety rules (docs/coding-guidelines.md 7: "never write a register outside a discovered PMU
// block; restore what you change"): a unit's layout lists every register it owns; the guard saves
// each one once, before the first write, refuses any other write, and can record every write it
// lets through (the golden-trace tests compare that record with the Linux drivers' sequences).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "pmukit/access/bdf.h"
#include "pmukit/pmu/settle.h"

namespace pmukit {
class Machine;
class RegisterWindow;
}  // namespace pmukit

namespace pmukit::pmu {

struct MsrAddress {
  int cpu = -1;  // the CPU whose msr device reaches it; -1 when none is known
  std::uint32_t msr = 0;
  auto operator<=>(const MsrAddress&) const = default;
};
struct MmioAddress {
  std::uint64_t phys = 0;
  auto operator<=>(const MmioAddress&) const = default;
};
struct ConfigAddress {
  Bdf bdf;
  std::uint32_t offset = 0;
  auto operator<=>(const ConfigAddress&) const = default;
};
using Address = std::variant<MsrAddress, MmioAddress, ConfigAddress>;

// The number within its space: the MSR number, the physical address, the config-space offset.
std::uint64_t location(const Address& a);
// The same address `bytes` further on (the high dword of a register read as two).
Address operator+(const Address& a, std::uint32_t bytes);
std::string to_string(const Address& a);  // "MSR 0x2002 (CPU 0)", "MMIO 0xc8aa2840", "PCI 0000:7e:0c.0 @0x468"

// How a register wider than one access is read and written.
enum class Load : std::uint8_t {
  One,     // a single load of the register's width
  HiLoHi,  // 32-bit high, low, high loads, again while the high dword moves (no 64-bit access)
};
enum class Store : std::uint8_t {
  One,   // a single store
  LoHi,  // two 32-bit stores, the low dword first (Linux lo_hi_writeq)
  HiLo,  // two 32-bit stores, the high dword first (Linux spr_uncore_pci_enable_event)
};

// One register: where it is and how it is accessed. Two Regs are the same register when they
// are at the same address.
struct Reg {
  Address at;
  std::uint8_t width = 32;  // bits: 32 or 64 (MSRs are always 64)
  Load load = Load::One;
  Store store = Store::One;

  friend bool operator==(const Reg& a, const Reg& b) { return a.at == b.at; }
  friend std::strong_ordering operator<=>(const Reg& a, const Reg& b) { return a.at <=> b.at; }
  std::string str() const { return to_string(at); }
};

Reg mmio32(std::uint64_t phys);
// `atomic`: the block has single-copy atomic 64-bit access (APMT ATOMIC flag, Intel MMIO counters);
// without it the register is read hi-lo-hi and written low dword first.
Reg mmio64(std::uint64_t phys, bool atomic);
Reg msr(int cpu, std::uint32_t number);
Reg config32(const Bdf& bdf, std::uint32_t offset);
Reg config64(const Bdf& bdf, std::uint32_t offset);  // two dwords: read hi-lo-hi, written high first

// One store as the bus sees it: a 64-bit register without 64-bit access takes two 32-bit ones.
struct Access {
  Address at;
  std::uint8_t width = 32;
  std::uint64_t value = 0;
  bool operator==(const Access&) const = default;
};
struct Stores {
  std::array<Access, 2> at;
  unsigned count = 0;
  const Access* begin() const { return at.data(); }
  const Access* end() const { return at.data() + count; }
};
// The stores writing `value` to `r` makes, in order: the one statement of Store's meaning.
Stores stores_of(const Reg& r, std::uint64_t value);

// Raw access to the machine's registers. MMIO registers are reached through blocks the unit's
// layout lists (an Intel box's control block, a CoreSight page): one mapping per block, never one
// per register, and never a second one for the same block.
class RegisterIo {
 public:
  explicit RegisterIo(Machine& machine);
  ~RegisterIo();
  RegisterIo(const RegisterIo&) = delete;
  RegisterIo& operator=(const RegisterIo&) = delete;

  std::uint64_t read(const Reg& r);
  void write(const Reg& r, std::uint64_t value);
  // Maps [base, base + size) writable now, so a permission problem surfaces before anything is
  // written. A block inside one already mapped shares that mapping.
  void map_block(std::uint64_t base, std::uint64_t size);
  std::size_t blocks() const { return windows_.size(); }
  // The mapped window holding [phys, phys + bytes), for a sampling loop to take a counter's
  // address once (RegisterWindow::address64); throws Error outside every mapped block.
  const RegisterWindow& window(std::uint64_t phys, unsigned bytes) { return window_for(phys, bytes); }
  Machine& machine() { return machine_; }

 private:
  RegisterWindow& window_for(std::uint64_t phys, unsigned bytes);
  std::uint64_t read_config(const ConfigAddress& a, const Reg& r);
  void store(const Access& a);

  Machine& machine_;
  std::vector<std::unique_ptr<RegisterWindow>> windows_;  // sorted by base
};

// One write the guard let through, as the stores it made, numbered in order.
struct WriteRecord {
  std::size_t order = 0;
  Access access;
};

// The set of registers drivers may write, and the original value of each.
class WriteGuard {
 public:
  explicit WriteGuard(RegisterIo& io) : io_(io) {}

  // Declares registers a unit owns and saves their current values (each read once, ever).
  void own(const std::vector<Reg>& regs);
  // Declares one register with an original value known from elsewhere (a journal), not read.
  void own_as(const Reg& r, std::uint64_t original) {
    saved_.insert_or_assign(r, original);
    known_elsewhere_ = true;
  }
  bool owns(const Reg& r) const { return saved_.count(r) != 0; }
  std::uint64_t original(const Reg& r) const;
  std::size_t saved() const { return saved_.size(); }

  std::uint64_t read(const Reg& r) { return io_.read(r); }
  // The value own() read, while nothing has been written through the guard (it is the register's
  // value then: a unit's lock is held before it is saved); read again otherwise.
  std::uint64_t read_saved(const Reg& r);
  // Throws Error without writing when `r` is not owned. Each write is a write point
  // (pmu/journal.h write_point).
  void write(const Reg& r, std::uint64_t value);
  std::size_t writes() const { return writes_; }
  // From now on, appends every store a write makes to `trace` (nullptr: stop recording).
  void record(std::vector<WriteRecord>* trace) { trace_ = trace; }
  // Command registers (UnitLayout::commands): hardware acts on each write at once, on what the
  // value selects (DesignWare EVENT_CNT_CTL: one lane event per write), so a simulator must see
  // every one of them, not the last of a phase. With a settle point (pmu-sim), each write to one
  // settles before write() returns; on hardware (nullptr) nothing waits.
  void commands(const std::vector<Reg>& regs) { commands_.insert(regs.begin(), regs.end()); }
  void settle_commands(Settle* settle) { settle_ = settle; }
  RegisterIo& io() { return io_; }

 private:
  RegisterIo& io_;
  std::map<Reg, std::uint64_t> saved_;
  std::size_t writes_ = 0;
  bool known_elsewhere_ = false;  // own_as() was called: a saved value may not be the register's
  std::vector<WriteRecord>* trace_ = nullptr;
  std::set<Reg> commands_;
  Settle* settle_ = nullptr;
};

}  // namespace pmukit::pmu
