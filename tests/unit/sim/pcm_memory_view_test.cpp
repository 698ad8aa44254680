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
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pcm_view_rig.h"

using namespace pmukit;
using nlohmann::json;

namespace {

struct Expected {
  const char* machine;
  int channels;        // a socket
  double read, write;  // MB/s a channel
};

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

class PcmMemoryView : public test::PcmViewRig {
 protected:
  void check_csv(const Expected& e) {
    on_machine(e.machine);
    auto r = raw({"--memory", "--duration", "1", "-x", ","});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_of(r.out), expected_csv(e)) << r.out;
    EXPECT_EQ(image_change(), "");
  }
};

}  // namespace

TEST_F(PcmMemoryView, CascadeLakeCsvPerSocketAndChannel) {
  check_csv({"clx-2s", 6, 5120, 2560});
}

TEST_F(PcmMemoryView, IceLakeCsvPerSocketAndChannel) {
  check_csv({"icx-2s", 12, 6400, 3200});
}

TEST_F(PcmMemoryView, SapphireRapidsCsvPerSocketAndChannel) {
  check_csv({"spr-2s", 8, 6400, 3200});
}

// AMD: the channel PMUs are numbered across both sockets; each socket shows its own 12.
TEST_F(PcmMemoryView, GenoaCsvPerSocketAndChannel) {
  check_csv({"genoa-2s", 12, 6400, 3200});
}

// Standard error: one line on what counts the view, not one per PMU (genoa-2s has 24 UMCs); perf
// stat would print none.
TEST_F(PcmMemoryView, OneLineOnStandardErrorWhateverThePmus) {
  on_machine("genoa-2s");
  auto r = raw({"--memory", "--duration", "2", "-j"});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_TRUE(has(r.err, "pmu-raw: --memory counts amd_umc_read_bw, amd_umc_write_bw, amd_dram_read_bw, "
                         "amd_dram_write_bw: direct register access (amd, 24 units; "))
      << r.err;
  EXPECT_FALSE(has(r.err, "amd_umc_0: direct")) << r.err;
}

// The table: a header with the channels' columns, a row per socket and the system's, no event lines.
TEST_F(PcmMemoryView, TableHasChannelColumnsAndNoEventLines) {
  on_machine("clx-2s");
  auto r = raw({"--memory", "--duration", "1", "--refresh"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "1.000 s: memory bandwidth, MB/s\n")) << r.out;
  EXPECT_TRUE(has(r.out, "Ch5 Read   Ch5 Write        Read       Write      Memory\n")) << r.out;
  EXPECT_TRUE(has(r.out, "S1           5120.00     2560.00")) << r.out;
  EXPECT_TRUE(has(r.out, "30720.00    15360.00    46080.00\n")) << r.out;
  EXPECT_TRUE(has(r.out, "61440.00    30720.00    92160.00\n")) << r.out;
  EXPECT_FALSE(has(r.out, "cas_count")) << r.out;
  EXPECT_FALSE(has(r.out, "\x1b[")) << "--refresh redraws only on a terminal: " << r.out;
}

TEST_F(PcmMemoryView, JsonLinesPerSocketWithChannels) {
  on_machine("spr-2s");
  auto r = raw({"--memory", "--duration", "1", "-j"});
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

TEST_F(PcmMemoryView, RefusesWhatItDoesNotGoWith) {
  on_machine("clx-2s", false);
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--memory", "-M", "dram_read_bw"}, {"--memory", "--per-socket"}, {"--refresh", "-M", "dram_read_bw"}}) {
    auto args = extra;
    args.insert(args.end(), {"--duration", "1"});
    auto r = raw(args);
    EXPECT_EQ(r.status, 2) << fmt::format("{}", fmt::join(extra, " ")) << ": " << r.err;
  }
}

// Machines without channel read and write counters: the view shows what the machine counts and
// says, under the title (and once on stderr), what is not available and why.
//   milan-2s (amd_df_zen3): per socket 8 DF events, dram_channel_data_controller_0..7, 1e8 64-byte
//     beats/s each (6400 MB/s a channel, reads and writes together).
//   grace-2s (SCF) and t410-2s (UCF): pmu-sim's default 1e6 counts/s: Grace reads 1e6 32-byte beats
//     (32 MB/s) and writes 1e6 bytes (1 MB/s); Tegra410 reads and writes 1e6 bytes each (1 MB/s).
TEST_F(PcmMemoryView, MilanShowsChannelTotalsAndNoReadWriteSplit) {
  on_machine("milan-2s");
  auto table = raw({"--memory", "--duration", "1"});
  ASSERT_EQ(table.status, 0) << table.err;
  const std::string why = "not available: Read, Write: Zen 3's Data Fabric counts a channel's DRAM requests with data";
  EXPECT_TRUE(has(table.out, "1.000 s: memory bandwidth, MB/s\n" + why)) << table.out;
  EXPECT_TRUE(has(table.err, "pmu-raw: --memory: " + why)) << table.err;
  EXPECT_TRUE(has(table.out, "  Ch7 Memory        Read       Write      Memory\n")) << table.out;
  EXPECT_TRUE(has(table.out, "6400.00         n/a         n/a    51200.00\n")) << table.out;
  EXPECT_TRUE(has(table.out, "n/a         n/a   102400.00\n")) << table.out;
  EXPECT_FALSE(has(table.out, "event=")) << table.out;
  std::string header = "time,socket", s0 = "1.000,S0";
  for (int c = 0; c < 8; ++c) header += fmt::format(",Ch{} Memory", c), s0 += ",6400.00";
  auto csv = raw({"--memory", "--duration", "1", "-x", ","});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(lines_of(csv.out),
            (std::vector<std::string>{header + ",Read,Write,Memory", s0 + ",,,51200.00",
                                      "1.000,S1" + s0.substr(8) + ",,,51200.00", "1.000,System,,,,,,,,,,,102400.00"}))
      << csv.out;
  auto j = raw({"--memory", "--duration", "1", "-j"});
  ASSERT_EQ(j.status, 0) << j.err;
  auto s1 = json::parse(lines_of(j.out).at(1));
  EXPECT_TRUE(s1["read"].is_null() && s1["write"].is_null()) << j.out;
  EXPECT_DOUBLE_EQ(s1["memory"].get<double>(), 51200.0);
  ASSERT_EQ(s1["channels"].size(), 8u);
  EXPECT_DOUBLE_EQ(s1["channels"][3]["memory"].get<double>(), 6400.0);
  EXPECT_TRUE(s1["channels"][3]["read"].is_null());
}

TEST_F(PcmMemoryView, GraceAndTegra410SocketReadWriteWithoutChannels) {
  for (const auto& [machine, read, write, pmu] : std::vector<std::tuple<const char*, double, double, const char*>>{
           {"grace-2s", 32, 1, "Grace's SCF PMU"}, {"t410-2s", 1, 1, "Tegra410's UCF PMU"}}) {
    on_machine(machine);
    auto r = raw({"--memory", "--duration", "1", "-x", ","});
    ASSERT_EQ(r.status, 0) << machine << ": " << r.err;
    EXPECT_TRUE(has(r.err, fmt::format("pmu-raw: --memory: not available: channels: {}", pmu))) << r.err;
    const auto socket = fmt::format("{:.2f},{:.2f},{:.2f}", read, write, read + write);
    EXPECT_EQ(lines_of(r.out),
              (std::vector<std::string>{
                  "time,socket,Read,Write,Memory", "1.000,S0," + socket, "1.000,S1," + socket,
                  fmt::format("1.000,System,{:.2f},{:.2f},{:.2f}", 2 * read, 2 * write, 2 * (read + write))}))
        << machine << ": " << r.out;
  }
}

// Yitian's PMUs (CMN mesh, PCIe root ports) count no DRAM traffic: one line saying so, naming them.
TEST_F(PcmMemoryView, MachineWithoutMemoryCountersSaysWhy) {
  on_machine("yitian", false);
  auto r = raw({"--memory", "--duration", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "pmu-raw: error: --memory: this machine has no memory controller or memory traffic counters: its uncore "
            "PMUs (arm_cmn, dwc_rootport, pcie_bdf) count no DRAM reads or writes\n");
  EXPECT_EQ(r.out, "");
}
