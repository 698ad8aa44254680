// The views PCM users know, on the Xeons of the kernel's fixed tables (clx-2s, icx-2s,
// issue 32) as on Sapphire Rapids: DRAM read/write bandwidth per channel and socket (pcm-memory)
// from the kernel's named CAS events of each generation, and PCIe bandwidth per device (pcm-iio)
// from the IIO stacks the UBOX publishes.
//
// Expected values from platforms/sim/rates.json, written out here: an intel_skx_imc channel counts
// cas_count_read (event 0x04, umask 0x03: Linux uncore_snbep.c, the SKX IMC's named event) 8e7 and
// cas_count_write (umask 0x0c) 4e7 per second, 64 bytes each; clx-2s has 6 channels a socket. IIO
// inbound reads count 8e8 4-byte units per second times the stack's share (by the n of
// uncore_iio_<n>: 1, 2, 1.5, 0.5, ...) and the part's (by ch_mask bit: 1, 0.5, 0.25, 0.75, ...).
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "pcm_view_rig.h"

using namespace pmukit;
using nlohmann::json;

namespace {

std::map<std::string, std::string> device_values(const std::string& out) {
  std::map<std::string, std::string> m;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (auto j = json::parse(line); j.contains("device"))
      m[j["device"].get<std::string>()] = j["metric-value"].get<std::string>();
  return m;
}

class PcmViewsClx : public test::PcmViewRig {};
class PcmViewsIcx : public test::PcmViewRig {};

}  // namespace

TEST_F(PcmViewsClx, DramBandwidthPerSocketAndChannelFromTheSkxCasEvents) {
  on_machine("clx-2s");
  auto s = raw({"-M", "dram_read_bw,dram_write_bw,dram_bw", "--per-socket", "--duration", "1", "-x", ","});
  ASSERT_EQ(s.status, 0) << s.err;
  // 6 channels x 8e7 CAS/s x 64 B = 30.72 GB/s read, 6 x 4e7 x 64 B = 15.36 GB/s written, each socket.
  EXPECT_TRUE(has(s.out, "S0,,,dram_read_bw (uncore_imc),,,30.720,GB/s")) << s.out;
  EXPECT_TRUE(has(s.out, "S1,,,dram_write_bw (uncore_imc),,,15.360,GB/s")) << s.out;
  EXPECT_TRUE(has(s.out, "S1,,,dram_bw (uncore_imc),,,46.080,GB/s")) << s.out;
  auto c = raw({"-M", "imc_read_bw", "--per-socket", "--duration", "1", "-x", ","});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(has(c.out, "S0,,,imc_read_bw (uncore_imc_5),,,5.120,GB/s")) << c.out;  // one channel: 8e7 x 64 B
  EXPECT_EQ(image_change(), "");
}

// spr_dram_read_bw writes Sapphire Rapids' codes (event 0x05, umask 0xcf), which on a Skylake-SP
// IMC are another event: refused, naming both kinds, and not listed for the machine.
TEST_F(PcmViewsClx, SapphireRapidsCodedMetricsDoNotRunOnSkxImcs) {
  on_machine("clx-2s", false);
  auto r = raw({"-M", "spr_dram_read_bw", "--duration", "1"});
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.err, "intel_spr_imc")) << r.err;
  EXPECT_TRUE(has(r.err, "intel_skx_imc")) << r.err;
  auto l = raw({"--list-metrics", "--names-only"});
  ASSERT_EQ(l.status, 0) << l.err;
  EXPECT_TRUE(has(l.out, "dram_read_bw\n")) << l.out;
  EXPECT_FALSE(has(l.out, "spr_dram_read_bw")) << l.out;
  EXPECT_FALSE(has(l.out, "iio_iotlb_lookups")) << "SKX counts IOTLB lookups on event 0x41: " << l.out;
}

// The same metric on Sapphire Rapids reads SPR's named events: the figure spr_dram_read_bw gives.
TEST_F(PcmViewsClx, TheSameDramMetricRunsOnSapphireRapids) {
  on_machine("spr-2s");
  auto d = raw({"-M", "dram_read_bw,spr_dram_read_bw", "--per-socket", "--duration", "1", "-x", ","});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_TRUE(has(d.out, "S1,,,dram_read_bw (uncore_imc),,,51.200,GB/s")) << d.out;
  EXPECT_TRUE(has(d.out, "S1,,,spr_dram_read_bw (uncore_imc),,,51.200,GB/s")) << d.out;
}

TEST_F(PcmViewsClx, PcieBandwidthPerDeviceFromTheUboxStacks) {
  on_machine("clx-2s");
  auto r = raw({"-M", "iio_inbound_read_bw", "--per-device", "--duration", "1", "-j"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = device_values(r.out);
  EXPECT_EQ(v.size(), 6u) << r.out;
  EXPECT_EQ(v["0000:18:00.0"], "6.400");  // socket 0 stack 1: uncore_iio_1 (x2), root port 0 = part 0 (x1)
  EXPECT_EQ(v["0000:3b:00.1"], "4.800");  // uncore_iio_2 (x1.5) part 0, shared by both NIC ports
  EXPECT_EQ(v["0000:5e:00.0"], "0.400");  // uncore_iio_3 (x0.5), root port at device 2 = part 2 (x0.25)
  EXPECT_EQ(v["0000:86:00.0"], "6.400");  // socket 1 stack 1
  EXPECT_EQ(v["0000:d8:00.0"], "1.200");  // socket 1 uncore_iio_3, part 3 (x0.75)
  EXPECT_EQ(image_change(), "");
}

// Ice Lake-SP (icx-2s): the same metric reads ICX's cas_count_read (event 0x04, umask 0x0f: Linux
// snr_uncore_imc_events, which icx_uncore_imc uses) on its MMIO channels: 4 controllers x 3
// channels a socket (ICX_NUMBER_IMC_CHN), each 1e8 CAS/s in rates.json's intel_icx_imc rule.
TEST_F(PcmViewsIcx, DramBandwidthPerSocketFromTheIcxCasEvents) {
  on_machine("icx-2s");
  auto s = raw({"-M", "dram_read_bw", "--per-socket", "--duration", "1", "-x", ","});
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_TRUE(has(s.out, "S1,,,dram_read_bw (uncore_imc),,,76.800,GB/s")) << s.out;  // 12 x 1e8 x 64 B
  EXPECT_EQ(image_change(), "");
}

// ICX stacks from SAD_CONTROL_CFG (icx table: SAD id 1 is uncore_iio_0, 2 is uncore_iio_1, 4 is
// uncore_iio_3), parts by root port device 2-5; inbound read 8e8 x 4 B x stack share x part share.
TEST_F(PcmViewsIcx, PcieBandwidthPerDeviceFromTheSadStacks) {
  on_machine("icx-2s");
  auto r = raw({"-M", "iio_inbound_read_bw", "--per-device", "--duration", "1", "-j"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto v = device_values(r.out);
  EXPECT_EQ(v.size(), 4u) << r.out;
  EXPECT_EQ(v["0000:16:00.0"], "3.200");  // uncore_iio_0 (x1), root port at device 2 = part 0 (x1)
  EXPECT_EQ(v["0000:27:00.1"], "1.600");  // uncore_iio_1 (x2), device 4 = part 2 (x0.25)
  EXPECT_EQ(v["0000:98:00.0"], "1.200");  // socket 1 uncore_iio_3 (x0.5), device 5 = part 3 (x0.75)
  EXPECT_EQ(image_change(), "");
}
