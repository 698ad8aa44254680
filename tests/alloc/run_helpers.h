// pmukit tests -- test_alloc's pmu-raw runs: the library's read loop, through pmu-raw's printer, counted to its end
// over a run already set up (the test has put its counting clock in), and what it printed, read back.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "pmu-raw/counting.h"
#include "pmu-raw/report.h"

namespace pmukit::test {

// Runs pmu-raw's loop with `o` (its report to a temporary file, whatever o.report.out says) over
// `run`, then the end of the run (the registers put back, which must all go back); returns what
// the run printed. The file is opened before and read after the loop: the counts of the loop's
// turns see neither.
inline std::string run_loop_output(tools::RawOptions o, counting::Run& run) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::tmpfile(), &std::fclose);
  EXPECT_NE(out, nullptr);
  if (!out) return {};
  o.report.out = out.get();
  {
    tools::Reporter reporter(o.report);
    tools::Printer printer(reporter, run, o.command);
    counting::ReadLoop loop(run, tools::loop_options(o), printer);
    loop.count();
    EXPECT_EQ(loop.finish(), std::vector<std::string>{});
  }
  std::string text(static_cast<std::size_t>(std::ftell(out.get())), '\0');
  std::rewind(out.get());
  EXPECT_EQ(std::fread(text.data(), 1, text.size(), out.get()), text.size());
  return text;
}

}  // namespace pmukit::test
