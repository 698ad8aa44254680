// Granite Rapids / Sierra Forest IMC sub-channels: each channel counts DRAM CAS commands per
// sub-channel (Linux uncore_snbep.c gnr_uncore_imc_events: cas_count_read_sch0 event=0x05,umask=0xcf,
// cas_count_read_sch1 event=0x06,umask=0xcf, writes umask 0xf0), and a channel's traffic is the sum of
// both, as perf's graniterapids memory_bandwidth_* and PCM count it.
//
// Expected figures from platforms/sim/rates.json (intel_gnr_imc), written out: gnr-2s has 12
// channels a socket; a channel reads 6e7 CAS/s on sub-channel 0 and 4e7 on sub-channel 1, writes
// 3e7 and 2e7, 64 bytes each. The sub-channels differ, so a formula counting one of them is seen.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pcm_view_rig.h"

using namespace pmukit;
using nlohmann::json;

namespace {

constexpr double kChannels = 2 * 12;                                     // both sockets
constexpr double kReadSch0 = 6e7, kReadSch1 = 4e7;                       // CAS/s a channel
constexpr double kWriteSch0 = 3e7, kWriteSch1 = 2e7;                     // CAS/s a channel
constexpr double kReadBytes = kChannels * (kReadSch0 + kReadSch1) * 64;  // a second, the machine
constexpr double kMiB = 6.103515625e-5;  // the kernel's scale of a CAS command: 64 bytes in MiB
constexpr double kWriteBytes = kChannels * (kWriteSch0 + kWriteSch1) * 64;  // a second, the machine

class GnrSubChannels : public test::PcmViewRig {
 protected:
  // The metric-value of each -j line of pmu-raw ARGS that gives a metric (not one of the events it
  // sums: "dram_read_bw (uncore_imc/cas_count_read_sch1)"), as numbers.
  std::vector<double> metric_values(std::vector<std::string> args) {
    args.insert(args.end(), {"--duration", "1", "-j"});
    auto r = raw(args);
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<double> v;
    for (const auto& line : lines_of(r.out))
      if (auto j = json::parse(line);
          j.contains("metric-value") && j["metric"].get<std::string>().find('/') == std::string::npos)
        v.push_back(std::stod(j["metric-value"].get<std::string>()));
    out_ = r.out;
    return v;
  }
  // The counter-value of each -j line of pmu-raw ARGS, as numbers (scaled: MiB for the CAS events).
  std::vector<double> counts(std::vector<std::string> args) {
    args.insert(args.end(), {"--duration", "1", "-j"});
    auto r = raw(args);
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<double> v;
    for (const auto& line : lines_of(r.out))
      if (auto j = json::parse(line); j.contains("counter-value"))
        v.push_back(std::stod(j["counter-value"].get<std::string>()));
    out_ = r.out;
    return v;
  }
  std::string out_;
};

}  // namespace

// dram_read_bw (GB/s), memory_bandwidth_read (perf's MB/s): both sub-channels of every channel.
TEST_F(GnrSubChannels, GnrDramReadBandwidthSumsBothSubChannels) {
  on_machine("gnr-2s");
  auto dram = metric_values({"-M", "dram_read_bw"});
  ASSERT_EQ(dram.size(), 1u) << out_;
  EXPECT_NEAR(dram[0], kReadBytes / 1e9, 1e-3) << out_;
  auto perf = metric_values({"-M", "memory_bandwidth_read"});
  ASSERT_EQ(perf.size(), 1u) << out_;
  EXPECT_NEAR(perf[0], kReadBytes / 1e6, 1e-3) << out_;
}

TEST_F(GnrSubChannels, GnrWriteAndTotalBandwidthSumBothSubChannels) {
  on_machine("gnr-2s");
  auto write = metric_values({"-M", "dram_write_bw"});
  ASSERT_EQ(write.size(), 1u) << out_;
  EXPECT_NEAR(write[0], kWriteBytes / 1e9, 1e-3) << out_;
  auto total = metric_values({"-M", "dram_bw"});
  ASSERT_EQ(total.size(), 1u) << out_;
  EXPECT_NEAR(total[0], (kReadBytes + kWriteBytes) / 1e9, 1e-3) << out_;
  auto perf_write = metric_values({"-M", "memory_bandwidth_write"});
  ASSERT_EQ(perf_write.size(), 1u) << out_;
  EXPECT_NEAR(perf_write[0], kWriteBytes / 1e6, 1e-3) << out_;
  auto perf_total = metric_values({"-M", "memory_bandwidth_total"});
  ASSERT_EQ(perf_total.size(), 1u) << out_;
  EXPECT_NEAR(perf_total[0], (kReadBytes + kWriteBytes) / 1e6, 1e-3) << out_;
}

// The kernel's sub-channel names: cas_count_read_sch1 is event=0x06,umask=0xcf (it counts what
// that code counts, and not sub-channel 0's); there is no channel-wide cas_count_read.
TEST_F(GnrSubChannels, GnrSubChannelEventNamesAreTheKernels) {
  on_machine("gnr-2s");
  auto sch1 = counts({"-e", "uncore_imc/cas_count_read_sch1/"});
  ASSERT_EQ(sch1.size(), 1u) << out_;
  EXPECT_DOUBLE_EQ(sch1[0], kChannels * kReadSch1 * kMiB) << out_;
  auto code = counts({"-e", "uncore_imc/event=0x06,umask=0xcf/"});
  ASSERT_EQ(code.size(), 1u) << out_;
  EXPECT_DOUBLE_EQ(code[0], kChannels * kReadSch1) << out_;
  auto sch0 = counts({"-e", "uncore_imc/cas_count_write_sch0/"});
  ASSERT_EQ(sch0.size(), 1u) << out_;
  EXPECT_DOUBLE_EQ(sch0[0], kChannels * kWriteSch0 * kMiB) << out_;
  auto r = raw({"-e", "uncore_imc/cas_count_read/", "--duration", "1"});
  EXPECT_NE(r.status, 0) << r.out;
}

// pcm-memory's view: each channel's Read is its two sub-channels' (6400 MB/s, not 3840).
TEST_F(GnrSubChannels, GnrMemoryViewChannelsCountBothSubChannels) {
  on_machine("gnr-2s");
  auto r = raw({"--memory", "--duration", "1", "-j"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  auto s0 = json::parse(lines[0]);
  ASSERT_EQ(s0["channels"].size(), 12u) << r.out;
  EXPECT_DOUBLE_EQ(s0["channels"][11]["read"].get<double>(), (kReadSch0 + kReadSch1) * 64 / 1e6);
  EXPECT_DOUBLE_EQ(s0["channels"][11]["write"].get<double>(), (kWriteSch0 + kWriteSch1) * 64 / 1e6);
  auto system = json::parse(lines[2]);
  EXPECT_DOUBLE_EQ(system["read"].get<double>(), kReadBytes / 1e6);
  EXPECT_DOUBLE_EQ(system["write"].get<double>(), kWriteBytes / 1e6);
}
