// pmukit tests -- a machine written from a spec (or a bundled one) and discovered: the fixture every
// discovery test starts from, with lookups by unit name and warning text.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmukit/access/machine.h"
#include "pmukit/access/register_window.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/test_support.h"

namespace pmukit::test {

struct Discovered {
  TempDir dir;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult r;
  std::uint64_t mmaps = 0;  // mappings discovery made (RegisterWindow::mmap_calls)
  // A machine spec (docs/snapshot-format.md); `opts` may move paths (its root is set here).
  explicit Discovered(const nlohmann::json& spec, MachineOptions opts = {}) {
    families::build_from_spec(spec, dir.path() / "m");
    discover_at(std::move(opts));
  }
  // A bundled machine (pmu-sim list).
  explicit Discovered(const std::string& bundled) {
    families::build_bundled(bundled, dir.path() / "m");
    discover_at({});
  }
  const discovery::PmuUnit* unit(const std::string& name) const {
    for (const auto& u : r.inventory.units)
      if (u.name == name) return &u;
    return nullptr;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& u : r.inventory.units) n.push_back(u.name);
    return n;
  }
  bool warned(const std::string& needle) const {
    for (const auto& w : r.inventory.warnings)
      if (w.find(needle) != std::string::npos) return true;
    return false;
  }
  std::string warnings() const {
    std::string s;
    for (const auto& w : r.inventory.warnings) s += w + "\n";
    return s;
  }

 private:
  void discover_at(MachineOptions opts) {
    opts.root = dir.path() / "m";
    machine = std::make_unique<Machine>(opts);
    const auto before = RegisterWindow::mmap_calls();
    r = families::discover(*machine);
    mmaps = RegisterWindow::mmap_calls() - before;
  }
};

// Whether one of the unit's notes contains `needle`.
inline bool noted(const discovery::PmuUnit& u, const std::string& needle) {
  for (const auto& n : u.notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace pmukit::test
