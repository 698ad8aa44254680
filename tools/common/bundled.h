// pmukit tools -- a bundled synthetic machine, built into a temporary directory for one run.
#pragma once

#include <filesystem>
#include <string>

namespace pmukit::tools {

class BundledSnapshot {
 public:
  // Builds machine `name` (see pmu-discover --list-machines) under $TMPDIR; removed on destruction.
  explicit BundledSnapshot(const std::string& name);
  ~BundledSnapshot();
  BundledSnapshot(const BundledSnapshot&) = delete;
  BundledSnapshot& operator=(const BundledSnapshot&) = delete;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

// Prints the bundled machines, one per line: name and label.
void print_bundled_machines();

}  // namespace pmukit::tools
