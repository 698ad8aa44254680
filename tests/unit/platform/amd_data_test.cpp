// The AMD uncore kinds of platforms/pmus/amd.json (written by scripts/amd-uncore-events.py from
// perf's event files): each kind has exactly the format/ attributes Linux's amd_uncore driver gives
// its PMU on that family (arch/x86/events/amd/uncore.c, written out below), and perf's named events
// encode to the config the driver's bit layout gives, computed here from the bits by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "pmukit/platform/database.h"
#include "pmukit/platform/embedded.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"

using namespace pmukit;

namespace {

using Formats = std::map<std::string, std::string>;

// uncore.c DEFINE_UNCORE_FORMAT_ATTR: event8, umask8, slicemask, threadmask8 (family 17h L3).
const Formats kF17hL3 = {
    {"event", "config:0-7"}, {"umask", "config:8-15"}, {"slicemask", "config:48-51"}, {"threadmask", "config:56-63"}};
// event8, umask8, coreid, enallslices, enallcores, sliceid, threadmask2 (family 19h and later L3).
const Formats kF19hL3 = {{"event", "config:0-7"},       {"umask", "config:8-15"},    {"coreid", "config:42-44"},
                         {"enallslices", "config:46"},  {"enallcores", "config:47"}, {"sliceid", "config:48-50"},
                         {"threadmask", "config:56-57"}};
// event14 with umask8 (DF without PerfMonV2), event14v2 with umask12 (DF with PerfMonV2).
const Formats kDfV1 = {{"event", "config:0-7,32-35,59-60"}, {"umask", "config:8-15"}};
const Formats kDfV2 = {{"event", "config:0-7,32-37"}, {"umask", "config:8-15,24-27"}};
// event8 and rdwrmask (UMC, PerfMonV2).
const Formats kUmc = {{"event", "config:0-7"}, {"rdwrmask", "config:8-9"}};

const std::map<std::string, Formats> kKernel = {
    {"amd_l3_zen2", kF17hL3}, {"amd_l3_zen3", kF19hL3}, {"amd_l3_zen4", kF19hL3}, {"amd_l3_zen5", kF19hL3},
    {"amd_df_zen2", kDfV1},   {"amd_df_zen3", kDfV1},   {"amd_df_zen4", kDfV2},   {"amd_df_zen5", kDfV2},
    {"amd_umc_zen4", kUmc},   {"amd_umc_zen5", kUmc}};

const platform::PmuKind& kind(const std::string& name) {
  const auto* k = platform::Database::builtin().pmu_kind(name);
  if (!k) throw std::runtime_error("no pmu kind " + name);
  return *k;
}

std::uint64_t encode_terms(const std::string& kind_name, const std::string& terms) {
  syntax::PmuDescription d;
  for (const auto& [name, bits] : kind(kind_name).formats) d.formats[name] = syntax::parse_format(name, bits);
  return syntax::encode(syntax::parse_event_list("p/" + terms + "/").at(0), d).config;
}

// perf's named event `event` of the kind, encoded.
std::uint64_t encode(const std::string& kind_name, const std::string& event) {
  return encode_terms(kind_name, kind(kind_name).events.at(event).terms);
}

}  // namespace

TEST(AmdData, EveryKindHasTheFormatsOfTheDriver) {
  for (const auto& [name, formats] : kKernel) EXPECT_EQ(kind(name).formats, formats) << name;
}

TEST(AmdData, TheFileDefinesTheTenKinds) {
  auto file = platform::find_embedded("pmus/amd.json");
  ASSERT_TRUE(file.has_value());
  auto doc = nlohmann::json::parse(*file);
  std::map<std::string, std::size_t> events;
  for (const auto& p : doc.at("pmus")) events[p.at("kind").get<std::string>()] = p.at("events").size();
  ASSERT_EQ(events.size(), kKernel.size());
  for (const auto& [name, formats] : kKernel) {
    ASSERT_TRUE(events.count(name)) << name;
    EXPECT_GT(events[name], 0u) << name << ": perf's files name events for every generation's kinds";
  }
  auto db = platform::Database::from_files({{"pmus/amd.json", std::string(*file)}});
  for (const auto& [name, formats] : kKernel) EXPECT_NE(db.pmu_kind(name), nullptr) << name;
}

TEST(AmdData, UmcCasEventsEncodeToEventAndRdWrMask) {
  // umc_cas_cmd.*: EventCode 0x0a, RdWrMask 1 (reads) or 2 (writes) in config:8-9.
  EXPECT_EQ(encode("amd_umc_zen4", "umc_cas_cmd.rd"), 0x0aull | (0x1ull << 8));
  EXPECT_EQ(encode("amd_umc_zen4", "umc_cas_cmd.wr"), 0x0aull | (0x2ull << 8));
  EXPECT_EQ(encode("amd_umc_zen4", "umc_cas_cmd.all"), 0x0aull);
  EXPECT_EQ(encode("amd_umc_zen5", "umc_cas_cmd.rd"), 0x0aull | (0x1ull << 8));
  EXPECT_EQ(encode("amd_umc_zen5", "umc_mem_clk"), 0x00ull);
}

TEST(AmdData, DataFabricEventsSplitAcrossTheDriversBits) {
  // Zen 2/3 event14: bits 0-7 to config 0-7, bits 8-11 to config 32-35 (0x7c7: 0xc7 and 0x7).
  EXPECT_EQ(encode("amd_df_zen3", "remote_outbound_data_controller_0"), 0xc7ull | (0x02ull << 8) | (0x7ull << 32));
  EXPECT_EQ(encode("amd_df_zen2", "dram_channel_data_controller_7"), 0xc7ull | (0x38ull << 8) | (0x1ull << 32));
  EXPECT_EQ(encode("amd_df_zen2", "dram_channel_data_controller_0"), 0x07ull | (0x38ull << 8));
  // The 13th and 14th event bits go to config 59-60.
  EXPECT_EQ(encode_terms("amd_df_zen3", "event=0x3007"), 0x07ull | (0x3ull << 59));
  // Zen 4/5 event14v2 (config:0-7,32-37) and umask12 (config:8-15,24-27).
  EXPECT_EQ(encode("amd_df_zen4", "local_processor_read_data_beats_cs4"),
            0x1full | (0x1ull << 32) | (0xfeull << 8) | (0x7ull << 24));
  EXPECT_EQ(encode("amd_df_zen5", "local_socket_inbound_data_beats_link_5"),
            0x9full | (0xeull << 32) | (0x3full << 8) | (0xfull << 24));
  EXPECT_EQ(encode("amd_df_zen5", "local_or_remote_socket_read_data_beats_dram_11"),
            0xdfull | (0x2ull << 32) | (0xfeull << 8) | (0xfull << 24));
}

TEST(AmdData, L3EventsUseTheFamilysMasks) {
  EXPECT_EQ(encode("amd_l3_zen2", "l3_misses"), 0x04ull | (0x01ull << 8));
  EXPECT_EQ(encode("amd_l3_zen2", "xi_ccx_sdp_req1.all_l3_miss_req_typs"), 0x9aull | (0x3full << 8));
  EXPECT_EQ(encode_terms("amd_l3_zen2", "event=0x04,umask=0xff,slicemask=0xf,threadmask=0xff"),
            0x04ull | (0xffull << 8) | (0xfull << 48) | (0xffull << 56));
  EXPECT_EQ(encode("amd_l3_zen4", "l3_lookup_state.l3_miss"), 0x04ull | (0x01ull << 8));
  // Zen 5's sampled-latency events set every core and slice, slice 3 and both threads.
  EXPECT_EQ(encode("amd_l3_zen5", "l3_xi_sampled_latency.all"),
            0xacull | (0x3full << 8) | (1ull << 47) | (1ull << 46) | (0x3ull << 48) | (0x3ull << 56));
  EXPECT_EQ(encode_terms("amd_l3_zen3", "event=0x04,umask=0xff,coreid=0x5"), 0x04ull | (0xffull << 8) | (0x5ull << 42));
}

TEST(AmdData, EveryNamedEventEncodesWithinItsKindsBits) {
  for (const auto& [name, formats] : kKernel) {
    std::uint64_t mask = 0;  // every config bit a format of the kind places
    for (const auto& [term, bits] : formats) {
      auto field = syntax::parse_format(term, bits);
      mask |= syntax::spread_value(field, syntax::format_max(field))[0];
    }
    for (const auto& [event, alias] : kind(name).events) {
      std::uint64_t config = 0;
      EXPECT_NO_THROW(config = encode(name, event)) << name << " " << event;
      EXPECT_EQ(config & ~mask, 0u) << name << " " << event;
    }
  }
}
