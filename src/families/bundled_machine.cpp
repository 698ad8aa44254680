// pmukit -- bundled synthetic machines in temporary directories.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "pmukit/families/bundled_machine.h"
#include "pmukit/families/registry.h"
#include "pmukit/util/error.h"

namespace pmukit::families {

BundledMachine::BundledMachine(std::string_view name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = fmt::format("{}/pmukit-{}-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
  if (!::mkdtemp(tmpl.data())) throw_errno(fmt::format("{}: mkdtemp", tmpl), errno);
  root_ = tmpl;
  try {
    build_bundled(name, root_);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
    throw;
  }
}

BundledMachine::~BundledMachine() {
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

}  // namespace pmukit::families
