// pmukit tests -- a bundled machine written to a temporary directory and discovered, with its
// register image taken before anything runs: what the end-to-end pmu-raw tests compare against.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "pmukit/access/machine.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "support/register_image.h"
#include "support/test_support.h"

namespace pmukit::test {

struct BundledRig {
  TempDir dir;
  std::filesystem::path root;
  std::unique_ptr<Machine> machine;
  discovery::DiscoveryResult found;
  RegisterImage before;
  explicit BundledRig(const std::string& name) : root(dir.path() / name) {
    families::build_bundled(name, root);
    machine = std::make_unique<Machine>(MachineOptions{root});
    found = families::discover(*machine);
    before = register_image(*machine, found.inventory);
  }
  // "" when every PMU register holds what it held before; else each difference.
  std::string image_change() { return image_difference(before, register_image(*machine, found.inventory)); }
  // `args` with --snapshot ROOT in front, for run_tool("pmu-raw", ...).
  std::vector<std::string> args(std::vector<std::string> a) const {
    a.insert(a.begin(), {"--snapshot", root.string()});
    return a;
  }
};

}  // namespace pmukit::test
