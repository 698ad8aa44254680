// pmu-raw --memory: pcm-memory's view (per socket and channel read/write MB/s, socket and system
// totals) from the DRAM metrics that apply to the machine, on pmu-sim's virtual time.
//
// Expected figures from platforms/sim/rates.json, written out: each channel PMU counts CAS commands
// of 64 bytes; MB is 1e6 bytes as PCM prints it.
//   clx-2s (intel_skx_imc): 6 channels a socket, 8e7 reads/s (5120 MB/s), 4e7 writes/s (2560 MB/s)
//   icx-2s (intel_icx_imc): 12 channels a socket, 1e8 reads/s (6400 MB/s), 5e7 writes/s (3200 MB/s)
//   spr-2s (intel_spr_imc): 8 channels a socket, 1e8 reads/s (6400 MB/s), 5e7 writes/s (3200 MB/s)
//   genoa-2s (amd_umc_zen4): 12 UMC channels a socket (amd_umc_0-11 on socket 0, 12-23 on socket 1),
//     1e8 reads/s (6400 MB/s), 5e7 writes/s (3200 MB/s)
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;
using nlohmann::json;

namespace {

struct Expected {
  const char* machine;
  int channels;        // a socket
  double read, write;  // MB/s a channel
};

bool has(const std::string& out, const std::string& text) {
  return out.find(text) != std::string::npos;
}

// The CSV lines the view should print for one interval at 1 s on a 2-socket machine.
std::vector<std::string> expected_csv(const Expected& e) {
  std::string header = "time,socket";
  for (int c = 0; c < e.channels; ++c) header += fmt::format(",Ch{0} Read,Ch{0} Write", c);
  std::vector<std::string> lines{header + ",Read,Write,Memory"};
  const double r = e.read * e.channels, w = e.write * e.channels;
  for (int s = 0; s < 2; ++s) {
    std::string line = fmt::format("1.000,S{}", s);
    for (int c = 0; c < e.channels; ++c) line += fmt::format(",{:.2f},{:.2f}", e.read, e.write);
    lines.push_back(line + fmt::format(",{:.2f},{:.2f},{:.2f}", r, w, r + w));
  }
  lines.push_back(
      fmt::format("1.000,System{},{:.2f},{:.2f},{:.2f}", std::string(2 * e.channels, ','), 2 * r, 2 * w, 2 * (r + w)));
  return lines;
}

std::vector<std::string> lines_of(const std::string& out) {
  std::vector<std::string> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

void check_csv(const Expected& e) {
  test::BundledRig rig(e.machine);
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"--memory", "--duration", "1", "-x", ","}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_of(r.out), expected_csv(e)) << r.out;
  EXPECT_EQ(rig.image_change(), "");
}

}  // namespace

TEST(PcmMemoryView, CascadeLakeCsvPerSocketAndChannel) {
  check_csv({"clx-2s", 6, 5120, 2560});
}

TEST(PcmMemoryView, IceLakeCsvPerSocketAndChannel) {
  check_csv({"icx-2s", 12, 6400, 3200});
}

TEST(PcmMemoryView, SapphireRapidsCsvPerSocketAndChannel) {
  check_csv({"spr-2s", 8, 6400, 3200});
}

// AMD: the channel PMUs are numbered across both sockets; each socket shows its own 12.
TEST(PcmMemoryView, GenoaCsvPerSocketAndChannel) {
  check_csv({"genoa-2s", 12, 6400, 3200});
}

// The table: a header with the channels' columns, a row per socket and the system's, no event lines.
TEST(PcmMemoryView, TableHasChannelColumnsAndNoEventLines) {
  test::BundledRig rig("clx-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"--memory", "--duration", "1", "--refresh"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "1.000 s: memory bandwidth, MB/s\n")) << r.out;
  EXPECT_TRUE(has(r.out, "Ch5 Read   Ch5 Write        Read       Write      Memory\n")) << r.out;
  EXPECT_TRUE(has(r.out, "S1           5120.00     2560.00")) << r.out;
  EXPECT_TRUE(has(r.out, "30720.00    15360.00    46080.00\n")) << r.out;
  EXPECT_TRUE(has(r.out, "61440.00    30720.00    92160.00\n")) << r.out;
  EXPECT_FALSE(has(r.out, "cas_count")) << r.out;
  EXPECT_FALSE(has(r.out, "\x1b[")) << "--refresh redraws only on a terminal: " << r.out;
}

TEST(PcmMemoryView, JsonLinesPerSocketWithChannels) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  auto r = test::run_tool("pmu-raw", rig.args({"--memory", "--duration", "1", "-j"}));
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  auto s1 = json::parse(lines[1]);
  EXPECT_EQ(s1["socket"], "S1");
  ASSERT_EQ(s1["channels"].size(), 8u);
  EXPECT_DOUBLE_EQ(s1["channels"][7]["read"].get<double>(), 6400.0);
  EXPECT_DOUBLE_EQ(s1["channels"][7]["write"].get<double>(), 3200.0);
  EXPECT_DOUBLE_EQ(s1["memory"].get<double>(), 8 * (6400.0 + 3200.0));
  auto system = json::parse(lines[2]);
  EXPECT_EQ(system["socket"], "system");
  EXPECT_DOUBLE_EQ(system["read"].get<double>(), 2 * 8 * 6400.0);
}

TEST(PcmMemoryView, RefusesWhatItDoesNotGoWith) {
  test::BundledRig rig("clx-2s");
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--memory", "-M", "dram_read_bw"}, {"--memory", "--per-socket"}, {"--refresh", "-M", "dram_read_bw"}}) {
    auto args = extra;
    args.insert(args.end(), {"--duration", "1"});
    auto r = test::run_tool("pmu-raw", rig.args(args));
    EXPECT_EQ(r.status, 2) << fmt::format("{}", fmt::join(extra, " ")) << ": " << r.err;
  }
}
