// pmukit tests -- the rig of the PCM view tests (pcm_*_test.cpp): pmu-raw run on a bundled machine
// under pmu-sim's virtual time, and what those tests read its output with.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

namespace pmukit::test {

class PcmViewRig : public ::testing::Test {
 protected:
  // The machine the next raw() runs on: `name` written out afresh, pmu-sim running it unless
  // `simulate` is false (for what pmu-raw refuses before counting anything).
  BundledRig& on_machine(const std::string& name, bool simulate = true) {
    sim_.reset();
    rig_ = std::make_unique<BundledRig>(name);
    if (simulate) sim_ = std::make_unique<SimProcess>(rig_->root);
    return *rig_;
  }
  // pmu-raw ARGS with --snapshot of the machine.
  RunResult raw(const std::vector<std::string>& args) const { return run_tool("pmu-raw", rig_->args(args)); }
  // "" while every PMU register holds what it held before.
  std::string image_change() const { return rig_->image_change(); }

  static bool has(const std::string& out, const std::string& text) { return out.find(text) != std::string::npos; }
  static std::vector<std::string> lines_of(const std::string& out) {
    std::vector<std::string> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) v.push_back(line);
    return v;
  }

 private:
  std::unique_ptr<BundledRig> rig_;
  std::unique_ptr<SimProcess> sim_;
};

}  // namespace pmukit::test
