// pmukit -- the simulator: one model per discovered unit, stepped together, and the registers
// they step.
#include "pmukit/sim/simulator.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/register_window.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::sim {

Registers::Registers(Machine& machine) : machine_(machine), io_(machine) {}
Registers::~Registers() = default;

RegisterWindow* Registers::msr_window(int cpu) {
  auto it = msr_.find(cpu);
  if (it != msr_.end()) return it->second.get();
  MsrDevice& dev = machine_.msr(cpu);
  std::unique_ptr<RegisterWindow> w;
  std::error_code ec;
  if (dev.is_snapshot_file()) {
    auto size = std::filesystem::file_size(dev.path(), ec);
    if (!ec && size >= 8) w = std::make_unique<RegisterWindow>(dev.path().string(), 0, size & ~7ull, 0, true);
  }
  return msr_.emplace(cpu, std::move(w)).first->second.get();
}

std::uint64_t Registers::read(const pmu::Reg& r) {
  if (const auto* m = std::get_if<pmu::MsrAddress>(&r.at))
    if (auto* w = msr_window(m->cpu); w && m->msr * 8ull + 8 <= w->size()) return w->read64(m->msr * 8ull);
  return io_.read(r);
}

void Registers::write(const pmu::Reg& r, std::uint64_t value) {
  if (const auto* m = std::get_if<pmu::MsrAddress>(&r.at))
    if (auto* w = msr_window(m->cpu); w && m->msr * 8ull + 8 <= w->size()) return w->write64(m->msr * 8ull, value);
  io_.write(r, value);
}

void Registers::map(const pmu::UnitLayout& layout) {
  for (const auto& b : layout.blocks) io_.map_block(b.base, b.size);
}

Simulator::Simulator(Machine& machine, const discovery::Inventory& inventory, Rates rates)
    : rates_(std::move(rates)), io_(std::make_unique<Registers>(machine)) {
  if (machine.is_live())
    throw Error("the live machine: pmu-sim simulates snapshots only, never this machine's registers");
  const Rates& kept = rates_;  // models keep a reference: the simulator neither moves nor copies
  std::set<std::string> modelled;
  for (const auto& unit : inventory.units) {
    // A block two units claim is stepped once (discovery/unit_overlap.h), by the first.
    if (auto it = std::find_if(unit.shares_registers_with.begin(), unit.shares_registers_with.end(),
                               [&](const std::string& n) { return modelled.count(n) > 0; });
        it != unit.shares_registers_with.end()) {
      skipped_.push_back(fmt::format("{} (shares registers with {})", unit.name, *it));
      continue;
    }
    auto layout = std::make_unique<pmu::UnitLayout>(pmu::make_layout(unit, platform::Database::builtin()));
    const auto* family = dynamic_cast<const FamilyModel*>(unit.family);
    std::unique_ptr<UnitModel> model = family ? family->model(*layout, kept) : nullptr;
    if (!model) {
      skipped_.push_back(unit.name);
      continue;
    }
    io_->map(*layout);
    modelled.insert(unit.name);
    layouts_.push_back(std::move(layout));
    models_.push_back(std::move(model));
  }
}

Simulator::~Simulator() = default;

void Simulator::step(std::uint64_t dt_ns) {
  for (auto& m : models_) {
    m->step(*io_, dt_ns);
    for (auto& f : m->faults) faults_.push_back(std::move(f));
    m->faults.clear();
  }
}

}  // namespace pmukit::sim
