// encode(): perf's rules on descriptions shaped like real uncore PMUs (SPR IMC, Tegra410 PCIe,
// DesignWare root port), built in memory because the encoder knows nothing of sysfs.
#include <gtest/gtest.h>

#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"

using namespace pmukit;
using namespace pmukit::syntax;

namespace {

void add_format(PmuDescription& pmu, const std::string& name, const char* text) {
  pmu.formats.emplace(name, parse_format(name, text));
}

void add_alias(PmuDescription& pmu, const std::string& name, std::string terms, double scale = 1.0,
               std::string unit = "") {
  pmu.aliases.emplace(name, EventAlias{name, std::move(terms), scale, std::move(unit)});
}

// Sapphire Rapids IMC: umask is split over config:8-15 and config:32-55.
PmuDescription imc() {
  PmuDescription pmu;
  pmu.name = "uncore_imc_0";
  add_format(pmu, "event", "config:0-7");
  add_format(pmu, "umask", "config:8-15,32-55");
  add_format(pmu, "edge", "config:18");
  add_alias(pmu, "cas_count_read", "event=0x04,umask=0x03\n", 6.103515625e-5, "MiB");
  add_alias(pmu, "cas_count_write", "event=0x04,umask=0x0c", 6.103515625e-5, "MiB");
  add_alias(pmu, "clockticks", "event=0x01,umask=0x00");
  return pmu;
}

// Tegra410 PCIe (v2): filters in config1 and config2.
PmuDescription nvidia_pcie() {
  PmuDescription pmu;
  pmu.name = "nvidia_pcie_pmu_0_rc_1";
  add_format(pmu, "event", "config:0-32");
  add_format(pmu, "src_rp_mask", "config1:0-7");
  add_format(pmu, "src_bdf", "config1:8-23");
  add_format(pmu, "src_bdf_en", "config1:24");
  add_format(pmu, "dst_loc_cmem", "config2:0");
  add_alias(pmu, "rd_bytes", "event=0x0");
  add_alias(pmu, "cycles", "event=0x100000000");
  return pmu;
}

// DesignWare PCIe RAS-DES, with a parameterised alias in perf's "lane=?" style.
PmuDescription dwc() {
  PmuDescription pmu;
  pmu.name = "dwc_rootport_3018";
  add_format(pmu, "eventid", "config:0-15");
  add_format(pmu, "type", "config:16-19");
  add_format(pmu, "lane", "config:20-27");
  add_alias(pmu, "tx_pcie_tlp_data_payload", "eventid=0x20,type=0x0", 16, "Bytes");
  add_alias(pmu, "tx_memory_write", "eventid=0x700,type=0x1,lane=?");
  return pmu;
}

EncodedEvent enc(std::string_view text, const PmuDescription& pmu) {
  auto specs = parse_event_list(text);
  EXPECT_EQ(specs.size(), 1u);
  return encode(specs.at(0), pmu);
}

std::string usage_error(std::string_view text, const PmuDescription& pmu) {
  try {
    enc(text, pmu);
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << text << " encoded without a usage error";
  return "";
}

}  // namespace

TEST(Encoder, SplitUmaskSpreadsLowBitsFirst) {
  auto e = enc("uncore_imc_0/event=0,umask=0x320/", imc());
  EXPECT_EQ(e.config, 0x0000000300002000ull);
  EXPECT_EQ(e.config1, 0u);
  EXPECT_EQ(e.config2, 0u);
}

TEST(Encoder, AliasExpandsWithScaleUnitAndTheWrittenName) {
  auto e = enc("uncore_imc_0/cas_count_read/", imc());
  EXPECT_EQ(e.config, 0x0304u);
  EXPECT_DOUBLE_EQ(e.scale, 6.103515625e-5);
  EXPECT_EQ(e.unit, "MiB");
  EXPECT_EQ(e.name, "uncore_imc_0/cas_count_read/");
}

TEST(Encoder, AliasMatchesIgnoringCaseAsPerfDoes) {
  EXPECT_EQ(enc("uncore_imc_0/CAS_COUNT_READ/", imc()).config, 0x0304u);
}

TEST(Encoder, UserTermsOverrideAndAddToAliasTerms) {
  EXPECT_EQ(enc("uncore_imc_0/cas_count_read,umask=0x1/", imc()).config, 0x0104u);
  EXPECT_EQ(enc("uncore_imc_0/umask=0x1,cas_count_read/", imc()).config, 0x0104u);
  EXPECT_EQ(enc("uncore_imc_0/cas_count_read,edge/", imc()).config, 0x40304u);
}

TEST(Encoder, EventEqualsAliasName) {
  auto e = enc("uncore_imc_0/event=cas_count_write/", imc());
  EXPECT_EQ(e.config, 0x0c04u);
  EXPECT_EQ(e.unit, "MiB");
}

TEST(Encoder, BareNameEventIsAnAliasOfThePmu) {
  EventSpec spec;
  spec.terms.push_back(Term{"clockticks", std::nullopt});
  spec.text = "clockticks";
  auto e = encode(spec, imc());
  EXPECT_EQ(e.config, 0x01u);
  EXPECT_EQ(e.name, "clockticks");
}

TEST(Encoder, NameLabelWins) {
  EXPECT_EQ(enc("uncore_imc_0/cas_count_read,name=reads/", imc()).name, "reads");
}

TEST(Encoder, BareFormatTermMeansOne) {
  auto e = enc("nvidia_pcie_pmu_0_rc_1/rd_bytes,src_bdf=0x0108,src_bdf_en,dst_loc_cmem/", nvidia_pcie());
  EXPECT_EQ(e.config, 0u);
  EXPECT_EQ(e.config1, 0x1010800u);
  EXPECT_EQ(e.config2, 0x1u);
}

TEST(Encoder, WideEventFieldCarriesTheCycleBit) {
  EXPECT_EQ(enc("nvidia_pcie_pmu_0_rc_1/cycles,src_rp_mask=0xff/", nvidia_pcie()).config, 0x100000000ull);
  EXPECT_EQ(enc("nvidia_pcie_pmu_0_rc_1/cycles,src_rp_mask=0xff/", nvidia_pcie()).config1, 0xffu);
}

TEST(Encoder, DesignWareLaneEvent) {
  auto e = enc("dwc_rootport_3018/eventid=0x700,type=0x1,lane=3/", dwc());
  EXPECT_EQ(e.config, 0x310700u);
  auto t = enc("dwc_rootport_3018/tx_pcie_tlp_data_payload/", dwc());
  EXPECT_EQ(t.config, 0x20u);
  EXPECT_DOUBLE_EQ(t.scale, 16);
  EXPECT_EQ(t.unit, "Bytes");
}

TEST(Encoder, ParameterisedAliasNeedsTheUsersValue) {
  EXPECT_EQ(enc("dwc_rootport_3018/tx_memory_write,lane=5/", dwc()).config, 0x510700u);
  EXPECT_EQ(usage_error("dwc_rootport_3018/tx_memory_write/", dwc()),
            "event 'dwc_rootport_3018/tx_memory_write/': term 'lane' needs a value: event "
            "'tx_memory_write' of pmu 'dwc_rootport_3018' has lane=?");
}

TEST(Encoder, ValueThatDoesNotFitIsAnError) {
  EXPECT_EQ(usage_error("uncore_imc_0/event=0x1ff/", imc()),
            "event 'uncore_imc_0/event=0x1ff/': value 0x1ff too big for format 'event' "
            "(config:0-7, maximum 0xff)");
  EXPECT_EQ(enc("uncore_imc_0/umask=0xffffffff/", imc()).config, 0x00ffffff0000ff00ull);
  EXPECT_NE(usage_error("uncore_imc_0/umask=0x100000000/", imc())
                .find("too big for format 'umask' (config:8-15,32-55, maximum 0xffffffff)"),
            std::string::npos);
  EXPECT_NE(usage_error("dwc_rootport_3018/type=16/", dwc()).find("value 16 too big"), std::string::npos);
}

TEST(Encoder, MisspeltTermsAndEventsGetTheNearestName) {
  EXPECT_EQ(usage_error("uncore_imc_0/cas_count_reed/", imc()),
            "event 'uncore_imc_0/cas_count_reed/': unknown term 'cas_count_reed' for pmu 'uncore_imc_0' (did you mean "
            "'cas_count_read'?) (valid terms: edge,event,umask,config,config1,config2,name)");
  EXPECT_NE(usage_error("uncore_imc_0/evnt=0x4/", imc()).find("(did you mean 'event'?)"), std::string::npos);
  EXPECT_NE(usage_error("uncore_imc_0/UMASK=0x4/", imc()).find("(did you mean 'umask'?)"), std::string::npos);
  EXPECT_NE(usage_error("uncore_imc_0/event=clcoktciks/", imc())
                .find("neither a number nor an event of pmu 'uncore_imc_0' (did you mean 'clockticks'?)"),
            std::string::npos);
  // A term with a value is a field, never an event: no event is offered for it.
  EXPECT_EQ(usage_error("uncore_imc_0/clockticks=1/", imc()).find("did you mean"), std::string::npos);
  EXPECT_EQ(usage_error("uncore_imc_0/bandwidth/", imc()).find("did you mean"), std::string::npos);
}

TEST(Encoder, ErrorsNameThePmuAsWritten) {
  // Encoded for the first box, reported for what the user wrote (perf: "for pmu 'uncore_imc'").
  EventSpec spec = parse_event_list("uncore_imc/foo=1/").at(0);
  try {
    encode(spec, imc());
    FAIL() << "encoded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown term 'foo' for pmu 'uncore_imc' (valid"), std::string::npos)
        << e.what();
  }
}

TEST(Encoder, UnknownTermUsesPerfsWording) {
  EXPECT_EQ(usage_error("uncore_imc_0/foo=1/", imc()),
            "event 'uncore_imc_0/foo=1/': unknown term 'foo' for pmu 'uncore_imc_0' (valid terms: "
            "edge,event,umask,config,config1,config2,name)");
  EXPECT_NE(usage_error("uncore_imc_0/cas_count_rd/", imc()).find("unknown term 'cas_count_rd' for pmu 'uncore_imc_0'"),
            std::string::npos);
}

TEST(Encoder, RawConfigWordsAreOredWithFormats) {
  auto e = enc("uncore_imc_0/config=0x5,event=0x2/", imc());
  EXPECT_EQ(e.config, 0x7u);
  auto w = enc("nvidia_pcie_pmu_0_rc_1/config1=0xff000000,config2=0x3,src_bdf=0x1/", nvidia_pcie());
  EXPECT_EQ(w.config1, 0xff000100u);
  EXPECT_EQ(w.config2, 0x3u);
  EXPECT_EQ(enc("uncore_imc_0/config=0x5,config=0x2/", imc()).config, 0x2u);
  EXPECT_EQ(enc("uncore_imc_0/config=0xffffffffffffffff/", imc()).config, ~0ull);
}

TEST(Encoder, FieldGivenTwiceTakesTheLaterValue) {
  EXPECT_EQ(enc("uncore_imc_0/event=0x1,event=0x2/", imc()).config, 0x2u);
}

TEST(Encoder, ValueErrors) {
  EXPECT_EQ(usage_error("uncore_imc_0/umask=abc/", imc()),
            "event 'uncore_imc_0/umask=abc/': value 'abc' of term 'umask' is not a number");
  EXPECT_EQ(usage_error("uncore_imc_0/event=cas_count_reed/", imc()),
            "event 'uncore_imc_0/event=cas_count_reed/': value 'cas_count_reed' of term 'event' "
            "is neither a number nor an event of pmu 'uncore_imc_0' (did you mean 'cas_count_read'?)");
  EXPECT_NE(usage_error("uncore_imc_0/config=0x10000000000000000/", imc()).find("not a number"), std::string::npos);
}

TEST(Encoder, TwoAliasesWithUnitsConflict) {
  EXPECT_NE(usage_error("uncore_imc_0/cas_count_read,cas_count_write/", imc())
                .find("events 'cas_count_read' and 'cas_count_write' both set a unit"),
            std::string::npos);
}

TEST(Encoder, BrokenAliasIsADescriptionErrorNotAUsageError) {
  PmuDescription pmu = imc();
  add_alias(pmu, "bad", "event=0x1,bogus=2");
  add_alias(pmu, "junk", "event=0x1,");
  auto spec = parse_event_list("uncore_imc_0/bad/").at(0);
  try {
    encode(spec, pmu);
    FAIL();
  } catch (const UsageError&) {
    FAIL() << "a broken description is not the user's fault";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "pmu 'uncore_imc_0': event 'bad' uses unknown term 'bogus'");
  }
  try {
    encode(parse_event_list("uncore_imc_0/junk/").at(0), pmu);
    FAIL();
  } catch (const UsageError&) {
    FAIL() << "a broken description is not the user's fault";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pmu 'uncore_imc_0': event 'junk': terms"), std::string::npos) << e.what();
  }
}

TEST(Encoder, FindAliasPrefersTheExactName) {
  PmuDescription pmu = imc();
  add_alias(pmu, "Clockticks", "event=0x2");
  EXPECT_EQ(find_alias(pmu, "Clockticks")->terms, "event=0x2");
  EXPECT_EQ(find_alias(pmu, "clockticks")->terms, "event=0x01,umask=0x00");
  EXPECT_EQ(find_alias(pmu, "CLOCKTICKS")->name, "Clockticks");  // first in map order
  EXPECT_EQ(find_alias(pmu, "nope"), nullptr);
}
