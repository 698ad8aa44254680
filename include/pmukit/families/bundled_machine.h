// pmukit -- a bundled synthetic machine (snapshot::bundled_machines(): "spr-2s", "grace-2s"...)
// built into a new directory under $TMPDIR and removed with the object: a Machine with this root
// runs pmukit where the hardware is not.
#pragma once

#include <filesystem>
#include <string_view>

namespace pmukit::families {

class BundledMachine {
 public:
  explicit BundledMachine(std::string_view name);  // families::build_bundled(name, root)
  ~BundledMachine();
  BundledMachine(const BundledMachine&) = delete;
  BundledMachine& operator=(const BundledMachine&) = delete;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

}  // namespace pmukit::families
