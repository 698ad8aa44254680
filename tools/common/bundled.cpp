// pmukit tools -- bundled synthetic machines in temporary directories.
#include "common/bundled.h"

#include <cstdlib>
#include <unistd.h>

#include <fmt/format.h>

#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"

namespace pmukit::tools {

BundledSnapshot::BundledSnapshot(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = fmt::format("{}/pmukit-{}-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
  if (!::mkdtemp(tmpl.data())) throw_errno(fmt::format("{}: mkdtemp", tmpl), errno);
  root_ = tmpl;
  try {
    families::build_bundled(name, root_);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
    throw;
  }
}

BundledSnapshot::~BundledSnapshot() {
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

void print_bundled_machines() {
  for (const auto& m : snapshot::bundled_machines()) fmt::print("{:<10} {}\n", m.name, m.label);
}

}  // namespace pmukit::tools
