// pmu-raw --io: pcm-iio's view, a row per PCIe device with inbound and outbound read and write in
// MB/s, on pmu-sim's virtual time.
//
// Expected figures from platforms/sim/rates.json, written out: an IIO part counts 4-byte units, per
// second 8e8 inbound reads (3200 MB/s), 4e8 inbound writes (1600 MB/s), 1e7 outbound reads (40 MB/s)
// and 2e7 outbound writes (80 MB/s), times the stack's share (by the n of uncore_iio_<n>: 1, 2, 1.5,
// 0.5) and the part's (by ch_mask bit: 1, 0.5, 0.25, 0.75), as pcm_views_test.cpp explains.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pcm_view_rig.h"

using namespace pmukit;
using nlohmann::json;

namespace {

std::vector<json> json_lines(const std::string& out) {
  std::vector<json> v;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) v.push_back(json::parse(line));
  return v;
}

class PcmIoView : public test::PcmViewRig {};

}  // namespace

// Cascade Lake: OB read from gnr_iio_outbound_read_bw's codes (DATA_REQ_BY_CPU.MEM_READ), which
// pcm-iio uses on Skylake-SP too; spr_iio_outbound_read_bw does not apply to an SKX IIO.
TEST_F(PcmIoView, CascadeLakeCsvPerDevice) {
  on_machine("clx-2s");
  auto r = raw({"--io", "--duration", "1", "-x", ","});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "time,device,socket,stack,IB read,IB write,OB read,OB write,name,reason\n")) << r.out;
  // uncore_iio_1 (x2), part 0 (x1).
  EXPECT_TRUE(has(r.out, "1.000,0000:18:00.0,0,uncore_iio_1 part 0,6400.00,3200.00,80.00,160.00,")) << r.out;
  // uncore_iio_3 (x0.5), part 2 (x0.25); lspci's name has a comma: quoted.
  EXPECT_TRUE(has(r.out, "1.000,0000:5e:00.0,0,uncore_iio_3 part 2,400.00,200.00,5.00,10.00,\"Non-Volatile")) << r.out;
  EXPECT_TRUE(has(r.out, "1.000,0000:d8:00.0,1,uncore_iio_3 part 3,1200.00,600.00,15.00,30.00,")) << r.out;
  EXPECT_FALSE(has(r.out, "event=")) << r.out;
  EXPECT_EQ(image_change(), "");
}

TEST_F(PcmIoView, IceLakeTablePerDevice) {
  on_machine("icx-2s");
  auto r = raw({"--io", "--duration", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "1.000 s: PCIe bandwidth per device, MB/s\n")) << r.out;
  EXPECT_TRUE(has(r.out, "IB read    IB write     OB read    OB write  Name\n")) << r.out;
  // uncore_iio_0 (x1), root port at device 2 = part 0 (x1); the Stack/part column is as wide as its
  // longest entry (TableColumnsLineUpWithLongStackLabels).
  EXPECT_TRUE(has(r.out, "0000:16:00.0  S0      uncore_iio_0 part 0  ")) << r.out;
  EXPECT_TRUE(has(r.out, "    3200.00     1600.00       40.00       80.00  Non-Volatile memory controller")) << r.out;
}

// Sapphire Rapids: every device --per-device lists, with the figure -M iio_inbound_read_bw gives it,
// and SPR's outbound read.
TEST_F(PcmIoView, SapphireRapidsJsonMatchesPerDeviceMetrics) {
  on_machine("spr-2s");
  auto v = raw({"--io", "--duration", "1", "-j"});
  ASSERT_EQ(v.status, 0) << v.err;
  auto m = raw({"-M", "iio_inbound_read_bw", "--per-device", "--duration", "1", "-j"});
  ASSERT_EQ(m.status, 0) << m.err;
  std::map<std::string, double> expected;  // MB/s
  for (const auto& j : json_lines(m.out))
    if (j.contains("device") && j.contains("metric-value"))
      expected[j["device"]] = std::stod(j["metric-value"].get<std::string>()) * 1e3;
  ASSERT_FALSE(expected.empty()) << m.out;
  std::size_t counted = 0;
  for (const auto& line : json_lines(v.out)) {
    if (!line.contains("devices")) continue;  // the system's line
    for (const auto& j : line["devices"]) {
      if (j.contains("reason")) continue;
      ++counted;
      const std::string bdf = j["device"];
      ASSERT_TRUE(expected.count(bdf)) << bdf;
      EXPECT_NEAR(j["ib_read"].get<double>(), expected[bdf], 0.5) << bdf;
      EXPECT_NEAR(j["ib_read"].get<double>() / 80, j["ob_read"].get<double>(), 0.01) << bdf;  // 3200 : 40 MB/s
    }
  }
  EXPECT_EQ(counted, expected.size()) << v.out;
}

// -j as --memory's: a line per socket, {"interval" : T, "socket" : "S<n>", its devices (as --memory
// its channels) in an array, their sums, "unit" : "MB/s"}, then the system's line with the sums of all.
TEST_F(PcmIoView, JsonIntervalObjectsAsTheMemoryViews) {
  on_machine("icx-2s");
  auto io = raw({"--io", "--duration", "1", "-j"});
  ASSERT_EQ(io.status, 0) << io.err;
  auto mem = raw({"--memory", "--duration", "1", "-j"});
  ASSERT_EQ(mem.status, 0) << mem.err;
  const auto lines = json_lines(io.out), memory = json_lines(mem.out);
  ASSERT_EQ(lines.size(), memory.size()) << io.out;  // S0, S1, system
  const auto text = lines_of(io.out), memory_text = lines_of(mem.out);
  double ib_read = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    // The members in --memory's order and spacing: the interval and socket first, the unit last.
    const auto lead = memory_text[i].substr(0, memory_text[i].find(", ", memory_text[i].find("\"socket\"")));
    EXPECT_EQ(text[i].substr(0, lead.size()), lead) << text[i];
    EXPECT_TRUE(text[i].ends_with(R"(, "unit" : "MB/s"})")) << text[i];
    EXPECT_EQ(lines[i]["interval"], memory[i]["interval"]);
    EXPECT_EQ(lines[i]["socket"], memory[i]["socket"]);
    EXPECT_EQ(lines[i]["unit"], "MB/s");
    EXPECT_EQ(lines[i].contains("devices"), memory[i].contains("channels"));
    if (!lines[i].contains("devices")) continue;  // the system's line, checked below
    double sum = 0;
    for (const auto& d : lines[i]["devices"]) sum += d.value("ib_read", 0.0);
    EXPECT_NEAR(lines[i]["ib_read"].get<double>(), sum, 0.05) << i;
    ib_read += sum;
  }
  EXPECT_GT(ib_read, 0);
  EXPECT_NEAR(lines.back()["ib_read"].get<double>(), ib_read, 0.05);
  EXPECT_TRUE(has(io.out, R"({"interval" : 1.000, "socket" : "S0", "devices" : [{"device" : "0000:16:00.0", )"))
      << io.out;
  ASSERT_EQ(lines_of(io.err).size(), 1u) << io.err;  // what counts it, on one line
  EXPECT_TRUE(has(io.err, "pmu-raw: --io counts iio_inbound_read_bw, ")) << io.err;
  EXPECT_TRUE(has(io.err, ": direct register access (")) << io.err;
}

// SPR/EMR and GNR/SRF share the IIO PMU kind but not the outbound read event: the view takes the
// metric whose generation's event perf's list for the CPU model has (SPR's DATA_REQ_OF_CPU.CMPD).
TEST_F(PcmIoView, OutboundReadMetricFollowsTheCpuModelsEvents) {
  for (const auto& [machine, used, not_used] :
       std::vector<std::array<std::string, 3>>{{"spr-2s", "spr_iio_outbound_read_bw", "gnr_iio_outbound_read_bw"},
                                               {"gnr-2s", "gnr_iio_outbound_read_bw", "spr_iio_outbound_read_bw"},
                                               {"clx-2s", "gnr_iio_outbound_read_bw", "spr_iio_outbound_read_bw"}}) {
    on_machine(machine);
    auto r = raw({"--io", "--duration", "1", "-j"});
    ASSERT_EQ(r.status, 0) << machine << ": " << r.err;
    EXPECT_TRUE(has(r.err, "--io counts iio_inbound_read_bw, iio_inbound_write_bw, iio_outbound_write_bw, " + used))
        << machine << ": " << r.err;
    EXPECT_FALSE(has(r.err, not_used)) << machine << ": " << r.err;
  }
}

TEST_F(PcmIoView, RefusesWhatItDoesNotGoWith) {
  on_machine("clx-2s", false);
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {"--io", "-M", "iio_inbound_read_bw"}, {"--io", "--per-device"}, {"--io", "--memory"}}) {
    auto args = extra;
    args.insert(args.end(), {"--duration", "1"});
    EXPECT_EQ(raw(args).status, 2) << extra[1];
  }
}

// The table's columns line up whatever the Stack/part text ("uncore_iio_7 part 2, shared with 4
// other devices" on spr-2s): each figure ends where its heading does.
TEST_F(PcmIoView, TableColumnsLineUpWithLongStackLabels) {
  on_machine("spr-2s");
  auto r = raw({"--io", "--duration", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string line, header;
  std::size_t rows = 0;
  bool long_label = false;
  while (std::getline(in, line)) {
    if (line.rfind("Device", 0) == 0) header = line;
    if (line.rfind("0000:", 0) != 0 || has(line, "not counted")) continue;
    ASSERT_FALSE(header.empty()) << r.out;
    long_label |= has(line, "shared with 4 other devices");
    for (const char* heading : {"IB read", "IB write", "OB read", "OB write"}) {
      const auto end = header.find(heading) + std::string(heading).size();  // a cell is right-aligned under it
      ASSERT_LT(end, line.size()) << line;
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(line[end - 1])) && line[end] == ' ') << heading << "\n"
                                                                                               << header << "\n"
                                                                                               << line;
    }
    ++rows;
  }
  EXPECT_GT(rows, 0u) << r.out;
  EXPECT_TRUE(long_label) << r.out;
}

// No Intel IIO PMU: one line saying so, and the per-root-port command where a metric counts PCIe
// bandwidth there (Tegra410's PCIe PMUs, DesignWare root ports), or the PMUs the machine has.
TEST_F(PcmIoView, MachinesWithoutIioSayWhyAndWhatCountsInstead) {
  const std::string head = "pmu-raw: error: --io: pcm-iio's per-device view counts on Intel IIO PMUs, and this "
                           "machine has none";
  for (const auto& [machine, rest] : std::vector<std::array<std::string, 2>>{
           {"t410-2s", "; its PCIe bandwidth per root port: pmu-raw -M t410_pcie_read_bw,t410_pcie_write_bw,"
                       "t410_pcie_tgt_read_bw,t410_pcie_tgt_write_bw --per-box --metric-only -I 1000\n"},
           {"yitian", "; its PCIe bandwidth per root port: pmu-raw -M dwc_pcie_rx_bw,dwc_pcie_tx_bw --per-box "
                      "--metric-only -I 1000\n"},
           {"milan-2s", " (its uncore PMUs: amd_df, amd_l3; no PCIe bandwidth metric applies to them)\n"}}) {
    on_machine(machine, false);
    auto r = raw({"--io", "--duration", "1"});
    EXPECT_EQ(r.status, 2) << machine;
    EXPECT_EQ(r.err, head + rest) << machine;
  }
}

// The command the error suggests runs, a line per root port and metric, and no event lines.
TEST_F(PcmIoView, SuggestedRootPortCommandRuns) {
  on_machine("yitian");
  auto r = raw({"-M", "dwc_pcie_rx_bw,dwc_pcie_tx_bw", "--per-box", "--metric-only", "--duration", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "dwc_pcie_rx_bw (dwc_rootport_0)")) << r.out;
  EXPECT_TRUE(has(r.out, "dwc_pcie_tx_bw (dwc_rootport_0)")) << r.out;
  EXPECT_FALSE(has(r.out, "event=")) << r.out;
}

// --per-device and --per-stack print pcm-iio's rows alone, as --metric-only does: not the encoded
// IIO events they are computed from, unless -e asks for events too.
TEST_F(PcmIoView, PerDeviceAndPerStackShowNoEventLinesUnlessAsked) {
  on_machine("icx-2s");
  for (const char* per : {"--per-device", "--per-stack"}) {
    auto r = raw({"-M", "iio_inbound_read_bw", per, "--duration", "1"});
    ASSERT_EQ(r.status, 0) << per << ": " << r.err;
    EXPECT_TRUE(has(r.out, "iio_inbound_read_bw (")) << per << ": " << r.out;
    EXPECT_FALSE(has(r.out, "event=0x83")) << per << ": " << r.out;
  }
  auto both = raw({"-M", "iio_inbound_read_bw", "-e", "uncore_iio_2/event=0x1/", "--per-device", "--duration", "1"});
  ASSERT_EQ(both.status, 0) << both.err;
  EXPECT_TRUE(has(both.out, "uncore_iio_2/event=0x1/")) << both.out;
  EXPECT_TRUE(has(both.out, "iio_inbound_read_bw (uncore_iio_0 part 0)")) << both.out;
}
