// pmu-raw's output that cannot be written is an error, not a success with the counts lost: to a
// full device (-o /dev/full, > /dev/full) in totals and in interval mode, with every register
// restored all the same.
#include <gtest/gtest.h>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// pmu-raw with its standard output sent to /dev/full, as `pmu-raw ... > /dev/full` does.
test::RunResult raw_to_full(const std::vector<std::string>& args) {
  std::string cmd = "exec " + shell_quote(std::string(PMUKIT_TOOLS_DIR) + "/pmu-raw");
  for (const auto& a : args) cmd += " " + shell_quote(a);
  return test::run_program("sh", {"-c", cmd + " > /dev/full"});
}

TEST(RawOutput, AFullDeviceIsAnErrorAndTheRegistersAreRestored) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  const std::vector<std::string> totals = {"-e", "uncore_imc/cas_count_read/", "--duration", "1"};
  const std::vector<std::string> intervals = {"-e", "uncore_imc/cas_count_read/", "-I", "100", "--interval-count", "3"};
  for (const auto& run : {totals, intervals}) {
    auto to_file = run;
    to_file.insert(to_file.end(), {"-o", "/dev/full"});
    auto r = test::run_tool("pmu-raw", rig.args(to_file));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    EXPECT_EQ(rig.image_change(), "");
    auto shell = raw_to_full(rig.args(run));
    EXPECT_EQ(shell.status, 1) << shell.err;
    EXPECT_NE(shell.err.find("No space left on device"), std::string::npos) << shell.err;
    EXPECT_EQ(rig.image_change(), "");
  }
}

}  // namespace
