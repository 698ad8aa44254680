// Workload scenarios and the per-unit rules of the simulator's rates: a documented count over a
// documented span comes out exactly, cumulative outstanding is requests x latency, filters of
// ports or devices without traffic count 0, and a bad scenario is one error naming it.
#include <gtest/gtest.h>

#include "pmukit/sim/simulator.h"
#include "pmukit/util/error.h"

using pmukit::sim::Accumulator;
using pmukit::sim::Rate;
using pmukit::sim::Rates;

namespace {

std::uint64_t count_over(const Rate& r, std::uint64_t total_ns, std::uint64_t step_ns) {
  Accumulator a;
  std::uint64_t n = 0, t = 0;
  for (; t + step_ns <= total_ns; t += step_ns) n += a.advance(r, step_ns);
  return n + a.advance(r, total_ns - t);
}

}  // namespace

TEST(SimScenario, ADocumentedCountOverItsSpanComesOutExactlyHoweverStepped) {
  // NVIDIA Grace Performance Tuning Guide, local write: 1,009,299,148 bytes in 0.127496157 s.
  const Rate r = Rate::exact(1'009'299'148, 127'496'157);
  EXPECT_EQ(count_over(r, 127'496'157, 127'496'157), 1'009'299'148u);
  EXPECT_EQ(count_over(r, 127'496'157, 1'000'000), 1'009'299'148u);
  EXPECT_EQ(count_over(r, 127'496'157, 4'000'007), 1'009'299'148u);
  // Alibaba Yitian 710 PCIe PMU guide, 200 s of fio: 6,777,637,176 16-byte units, past 2^32.
  EXPECT_EQ(count_over(Rate::exact(6'777'637'176, 200'494'446'963), 200'494'446'963, 3'000'000'001), 6'777'637'176u);
  // Half the span: floor(count / 2).
  EXPECT_EQ(count_over(Rate::exact(7, 10), 5, 1), 3u);
}

TEST(SimScenario, WholeRatesPerSecondAreExactAndTimesKeepsThemExact) {
  const Rate r = Rate::of(1e6);
  ASSERT_NE(r.per_ns, 0u);
  EXPECT_EQ(count_over(r, 3'000'000'000, 7'777'777), 3'000'000u);
  const Rate outs = r.times(450, 1);  // 450 outstanding cycles per request
  EXPECT_EQ(count_over(outs, 2'000'000'000, 333'333'333), 900'000'000u);
  EXPECT_EQ(Rate::of(2.5).per_ns, 0u);  // not whole: per second, as before
  EXPECT_DOUBLE_EQ(Rate::of(2.5).per_second(), 2.5);
  EXPECT_EQ(count_over(r.scaled(0.0), 1'000'000'000, 1'000'000), 0u);
}

TEST(SimScenario, RulesGoUnitThenOccupancyThenKindAndRateOverridesAll) {
  Rates rates;
  rates.add_rule("k:0x5=7");
  rates.add_rule("cycles=1000000000");  // a 1 GHz cycle counter
  rates.add_scenario(R"({"span_ns": 1000000000,
    "events": [{"unit": "u_0", "code": "0x1", "count": 123},
               {"unit": "u_*", "code": "*", "rate": 0},
               {"unit": "u_0", "code": "0x5", "count": 99},
               {"kind": "k", "code": "0x2", "rate": 40}],
    "occupancy": [{"kind": "k", "outstanding": "0x3", "requests": "0x2", "latency_ns": 250}]})",
                     "test.json");
  EXPECT_EQ(count_over(rates.lookup("u_0", "k", "0x1"), 1'000'000'000, 1'000'000), 123u);
  EXPECT_EQ(count_over(rates.lookup("u_0", "k", 0x1), 1'000'000'000, 1'000'000), 123u);
  EXPECT_EQ(count_over(rates.lookup("u_1", "k", "0x1"), 1'000'000'000, 1'000'000), 0u);  // u_* for every code
  EXPECT_EQ(count_over(rates.lookup("v_0", "k", "0x2"), 1'000'000'000, 1'000'000), 40u);
  EXPECT_EQ(count_over(rates.lookup("u_0", "k", "0x5"), 1'000'000'000, 1'000'000), 7u);  // --rate wins
  // Outstanding: 40 requests/s x 250 ns x 1 cycle/ns.
  EXPECT_EQ(count_over(rates.lookup("v_0", "k", "0x3"), 1'000'000'000, 1'000'000), 10'000u);
  // A unit without rules keeps the kind's default rate.
  EXPECT_EQ(count_over(rates.lookup("v_0", "k", "0x9"), 1'000'000'000, 1'000'000), 1'000'000u);
}

TEST(SimScenario, AFilterOfPortsOrDevicesWithoutTrafficCountsNothing) {
  Rates rates;
  rates.add_scenario(R"({"filters": [
    {"unit": "rc_4", "port_mask": "0xff", "ports": "0x2",
     "bdf": {"enable_bit": 24, "shift": 8, "devices": ["0x4100"]}},
    {"kind": "pcie", "port_mask": "0xff", "ports": "0x0"}]})",
                     "test.json");
  EXPECT_EQ(rates.filter_share("rc_4", "pcie", 0x2), 1.0);
  EXPECT_EQ(rates.filter_share("rc_4", "pcie", 0x3), 1.0);  // a mask with one busy port
  EXPECT_EQ(rates.filter_share("rc_4", "pcie", 0x1), 0.0);
  EXPECT_EQ(rates.filter_share("rc_4", "pcie", 0x0), 1.0);  // no port bits: every port
  EXPECT_EQ(rates.filter_share("rc_4", "pcie", 1u << 24 | 0x4100 << 8), 1.0);
  EXPECT_EQ(rates.filter_share("rc_4", "pcie", 1u << 24 | 0x0180 << 8), 0.0);
  EXPECT_EQ(rates.filter_share("rc_1", "pcie", 0xff), 0.0);  // the kind's rule: no device at all
  EXPECT_EQ(rates.filter_share("x", "other", 0x1), 1.0);     // no rule
}

TEST(SimScenario, TheBundledDefaultsZeroGraceC2c1AndCnvlinkAndModelLatency) {
  const Rates rates = Rates::defaults();
  // NVIDIA Grace Performance Tuning Guide: on a Grace CPU Superchip these PMUs count zero.
  EXPECT_EQ(rates.lookup("nvidia_nvlink_c2c1_pmu_0", "nvidia_grace_nvlink_c2c", "0x0").per_second(), 0.0);
  EXPECT_EQ(rates.lookup("nvidia_cnvlink_pmu_1", "nvidia_grace_cnvlink", "0x4").per_second(), 0.0);
  EXPECT_GT(rates.lookup("nvidia_nvlink_c2c0_pmu_0", "nvidia_grace_nvlink_c2c", "0x0").per_second(), 0.0);
  // Latency = outstanding / requests / (cycles per ns): not 1 cycle.
  const double req = rates.lookup("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x1a6").per_second();
  const double outs = rates.lookup("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x1a7").per_second();
  const double ghz = rates.lookup("nvidia_scf_pmu_0", "nvidia_grace_scf", "cycles").per_second() / 1e9;
  EXPECT_GT(outs / req / ghz, 1.0);
}

TEST(SimScenario, ABadScenarioIsOneErrorNamingIt) {
  Rates rates;
  auto message = [&](const char* text) {
    try {
      rates.add_scenario(text, "bad.json");
    } catch (const pmukit::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("{"), "bad.json: not a scenario: parse error at line 1, column 2: syntax error while parsing "
                          "object key - unexpected end of input; expected string literal");
  EXPECT_EQ(message(R"({"events": [{"unit": "u", "code": "0x1", "count": 5}]})"),
            "bad.json: a rule gives a count, but the scenario has no span_ns");
  EXPECT_EQ(message(R"({"events": [{"code": "0x1", "rate": 5}]})"),
            "bad.json: a rule names a unit or a kind (one of them)");
  EXPECT_EQ(message(R"({"filters": [{"kind": "k", "port_mask": "0xzz"}]})"),
            "bad.json: not a scenario: port_mask '0xzz' is not a number");
  EXPECT_EQ(message(R"({"events": [{"kind": "k", "code": "0x1", "rate": -1}]})"),
            "bad.json: rate -1 is not counts per second");
}

// A derived rule counts the sum of other events' rates, exactly where they are exact; it comes after
// a rule for that very event and before a unit's rule for every event.
TEST(SimScenario, ADerivedEventCountsTheSumOfItsParts) {
  Rates rates;
  rates.add_rule("cycles=1000000000");
  rates.add_scenario(R"({"span_ns": 3,
    "events": [{"unit": "u_0", "code": "0x0", "count": 1}, {"unit": "u_0", "code": "0x2", "rate": 500},
               {"unit": "u_1", "code": "0x4", "rate": 7}, {"unit": "u_2", "code": "*", "rate": 0}],
    "derived": [{"kind": "k", "code": "0x4", "sum": ["0x0", "0x2"]}, {"kind": "k", "code": "0x1d", "sum": ["cycles"]}]})",
                     "test.json");
  // 1 count every 3 ns plus 500/s: over 3 s, 1,000,000,000 + 1,500, to the count.
  EXPECT_EQ(count_over(rates.lookup("u_0", "k", "0x4"), 3'000'000'000, 7'000'001), 1'000'001'500u);
  EXPECT_EQ(count_over(rates.lookup("u_0", "k", "0x1d"), 1'000'000'000, 1'000'000), 1'000'000'000u);
  EXPECT_EQ(count_over(rates.lookup("u_1", "k", "0x4"), 1'000'000'000, 1'000'000), 7u);  // its own rule first
  EXPECT_EQ(count_over(rates.lookup("u_2", "k", "0x4"), 1'000'000'000, 1'000'000), 0u);  // parts of a silent unit
  const Rate sum = Rate::exact(1, 3).plus(Rate::exact(1, 6));
  EXPECT_EQ(sum.count, 1u);
  EXPECT_EQ(sum.per_ns, 2u);
  EXPECT_THROW(rates.add_scenario(R"({"derived": [{"kind": "k", "code": "0x4", "sum": ["0x4"]}]})", "self.json"),
               pmukit::Error);
}

// What the NVIDIA Grace Performance Tuning Guide says the counts are, in pmu-sim's defaults
// (platforms/sim/rates.json): BUS_CYCLES "the same as cycles"; TOTAL_BYTES_LOC is read plus write
// bytes (its GPU runs: total = rd + wr); on a Grace CPU Superchip the GMEM events count nothing (its
// GMEM metrics are "not applicable" there); a remote read takes longer than a local one.
TEST(SimScenario, TheGraceDefaultsModelWhatTheGuideSays) {
  const Rates rates = Rates::defaults();
  auto per_s = [&](const char* unit, const char* kind, const char* code) {
    return count_over(rates.lookup(unit, kind, code), 1'000'000'000, 1'000'000);
  };
  EXPECT_EQ(per_s("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x1d"),
            per_s("nvidia_scf_pmu_0", "nvidia_grace_scf", "cycles"));
  for (const char* unit : {"nvidia_pcie_pmu_0", "nvidia_nvlink_c2c0_pmu_1"}) {
    const char* kind = unit[7] == 'p' ? "nvidia_grace_pcie" : "nvidia_grace_nvlink_c2c";
    EXPECT_EQ(per_s(unit, kind, "0x4"), per_s(unit, kind, "0x0") + per_s(unit, kind, "0x2")) << unit;
    EXPECT_EQ(per_s(unit, kind, "0xb"), per_s(unit, kind, "0x7") + per_s(unit, kind, "0x9")) << unit;
  }
  for (const char* gmem : {"0x16d", "0x16e", "0x16f", "0x173", "0x174", "0x179", "0x17b", "0x1a0"})
    EXPECT_EQ(per_s("nvidia_scf_pmu_1", "nvidia_grace_scf", gmem), 0u) << gmem;
  EXPECT_GT(per_s("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x1a6"), 0u);  // CMEM reads do count
  // Latency = outstanding / requests in cycles (1 GHz): socket 1's memory read from socket 0 takes
  // longer than socket 0's own.
  const auto remote = per_s("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x116") /
                      per_s("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x12e"),
             local = per_s("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x1a7") /
                     per_s("nvidia_scf_pmu_0", "nvidia_grace_scf", "0x1a6");
  EXPECT_GT(remote, local);
  EXPECT_GT(remote, 1u);  // not the 1 ns two flat rates would give
}
