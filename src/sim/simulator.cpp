// pmukit -- the simulator: one model per discovered unit, stepped together.
#include "pmukit/sim/simulator.h"

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/driver.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/util/error.h"

namespace pmukit::sim {

Simulator::Simulator(Machine& machine, const discovery::Inventory& inventory, Rates rates)
    : rates_(std::move(rates)), io_(std::make_unique<pmu::RegisterIo>(machine)) {
  io_->map_msr_files(true);
  const Rates& kept = rates_;  // models keep a reference: the simulator neither moves nor copies
  for (const auto& unit : inventory.units) {
    std::unique_ptr<UnitModel> model;
    switch (unit.family) {
    case discovery::Family::IntelUncore:
      model = make_intel_model(unit, kept);
      break;
    case discovery::Family::CoreSight:
      model = make_coresight_model(unit, kept);
      break;
    case discovery::Family::DwcRasDes:
      model = make_dwc_model(unit, kept);
      break;
    case discovery::Family::T410C2c:
    case discovery::Family::T410CmemLatency:
      model = make_t410_model(unit, kept);
      break;
    case discovery::Family::Cmn:
      break;  // not modelled yet
    }
    if (!model) {
      skipped_.push_back(unit.name);
      continue;
    }
    // Map the unit's register blocks the same way its driver does.
    for (const auto& [base, size] : pmu::make_driver(unit, platform::Database::builtin())->mmio_blocks())
      io_->map_block(base, size);
    models_.push_back(std::move(model));
  }
}

Simulator::~Simulator() = default;

void Simulator::step(std::uint64_t dt_ns) {
  for (auto& m : models_) m->step(*io_, dt_ns);
}

}  // namespace pmukit::sim
