// pmukit tests -- test_alloc's pmu-raw runs: the run loop counted to its end over a run already
// set up (the test has put its counting clock in), and what it printed, read back.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "pmu-raw/report.h"
#include "pmu-raw/run_loop.h"

namespace pmukit::test {

// Runs pmu-raw's loop with `o` (its report to a temporary file, whatever o.report.out says) over
// `run`, then the end of the run (the registers put back, which must all go back); returns what
// the run printed. The file is opened before and read after the loop: the counts of the loop's
// turns see neither.
inline std::string run_loop_output(tools::RawOptions o, tools::RunSetup& run) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::tmpfile(), &std::fclose);
  EXPECT_NE(out, nullptr);
  if (!out) return {};
  o.report.out = out.get();
  {
    tools::Reporter reporter(o.report);
    tools::RunLoop loop(o, run, reporter);
    loop.count();
    EXPECT_EQ(loop.report_end(), std::vector<std::string>{});
  }
  std::string text(static_cast<std::size_t>(std::ftell(out.get())), '\0');
  std::rewind(out.get());
  EXPECT_EQ(std::fread(text.data(), 1, text.size(), out.get()), text.size());
  return text;
}

}  // namespace pmukit::test
