// pmukit tests -- golden write traces: a fixed event set programmed, started, read, stopped and
// restored, and every store the session makes compared with a sequence written out in the test,
// value by value, from the Linux driver that programs the same unit and the hardware
// documentation. The expected values are literals: nothing here comes from pmukit's register maps.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/session.h"

namespace pmukit::test {

inline pmu::Access msr_store(std::uint32_t number, std::uint64_t value, int cpu = 0) {
  return {pmu::MsrAddress{cpu, number}, 64, value};
}
inline pmu::Access mmio_store(std::uint64_t phys, unsigned width, std::uint64_t value) {
  return {pmu::MmioAddress{phys}, static_cast<std::uint8_t>(width), value};
}
inline pmu::Access config_store(const char* bdf, std::uint32_t offset, std::uint32_t value) {
  return {pmu::ConfigAddress{*Bdf::parse(bdf), offset}, 32, value};
}

inline std::string show(const pmu::Access& a) {
  return fmt::format("{} w{} = {:#x}", pmu::to_string(a.at), a.width, a.value);
}

// "" when the trace is the expected one, store for store and in order; else where they part.
inline std::string trace_difference(const std::vector<pmu::WriteRecord>& got, const std::vector<pmu::Access>& want) {
  std::string out;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i].order != i) return fmt::format("store {} is numbered {}", i, got[i].order);
  for (std::size_t i = 0; i < std::max(got.size(), want.size()); ++i) {
    std::string g = i < got.size() ? show(got[i].access) : "(nothing)";
    std::string w = i < want.size() ? show(want[i]) : "(nothing)";
    if (g != w) return fmt::format("store {}: wrote {}, expected {}", i, g, w);
  }
  return out;
}

inline syntax::EncodedEvent event(std::uint64_t config, std::uint64_t config1 = 0, std::uint64_t config2 = 0) {
  syntax::EncodedEvent e;
  e.config = config, e.config1 = config1, e.config2 = config2;
  return e;
}

// Programs `work`, starts, reads once, stops and restores, with every store recorded. No
// simulator runs: what the registers hold afterwards is not the point here, the stores are.
inline std::vector<pmu::WriteRecord> run_fixed_events(Machine& machine, std::vector<pmu::UnitEvents> work) {
  std::vector<pmu::WriteRecord> trace;
  pmu::SessionOptions options;
  options.trace = &trace;
  pmu::DirectSession s(machine, std::move(work), platform::Database::builtin(), options);
  s.start();
  s.sample();
  s.stop();
  s.restore();
  EXPECT_TRUE(s.restore_errors().empty());
  return trace;
}

}  // namespace pmukit::test
