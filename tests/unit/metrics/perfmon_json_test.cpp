// PerfmonEvents: Intel perfmon JSON (both layouts) to a kernel PMU type and perf terms, the way
// perf's jevents.py maps Unit and fields. The sample files are written here, not copied.
#include <gtest/gtest.h>

#include "pmukit/events/perfmon_json.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using pmukit::events::PerfmonEvent;
using pmukit::events::PerfmonEvents;
using pmukit::events::unit_to_pmu_type;

namespace {

// A kernel-tree style file: a bare array.
const char* kArrayFile = R"([
  {
    "BriefDescription": "read CAS commands issued to DRAM",
    "Counter": "0,1,2,3",
    "EventCode": "0x05",
    "EventName": "UNC_M_CAS_COUNT.RD",
    "PerPkg": "1",
    "ScaleUnit": "64Bytes",
    "UMask": "0xCF",
    "Unit": "IMC"
  },
  {
    "BriefDescription": "write CAS commands issued to DRAM",
    "EventCode": "0x05",
    "EventName": "UNC_M_CAS_COUNT.WR",
    "PerPkg": "1",
    "ScaleUnit": "64Bytes",
    "UMask": "0xF0",
    "Unit": "IMC"
  },
  {
    "BriefDescription": "memory controller clock ticks",
    "EventCode": "0x01",
    "EventName": "UNC_M_CLOCKTICKS",
    "PerPkg": "1",
    "UMask": "0x00",
    "Unit": "IMC"
  }
])";

// An intel/perfmon style file: Header plus Events, with the fields that need care.
const char* kHeaderFile = R"({
  "Header": {"Copyright": "written for pmukit's tests", "Info": "sample", "Version": "0.1"},
  "Events": [
    {"EventName": "UNC_CHA_TOR_INSERTS.IA_MISS", "EventCode": "0x35", "UMask": "0xC001FE01",
     "Unit": "CHA", "PerPkg": "1", "Experimental": "1", "BriefDescription": "TOR inserts"},
    {"EventName": "UNC_M2HBM_WIDE.X", "EventCode": "0x2D", "UMask": "0x320", "Unit": "M2HBM",
     "PerPkg": "1", "Deprecated": "1", "BriefDescription": "wide umask"},
    {"EventName": "UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0", "EventCode": "0x83", "UMask": "0x04",
     "PortMask": "0x01", "FCMask": "0x07", "Unit": "IIO", "PerPkg": "1", "ScaleUnit": "4Bytes",
     "BriefDescription": "four-byte reads of part 0"},
    {"EventName": "UNC_UPI_TXL_FLITS.ALL_DATA", "EventCode": "0x02", "UMask": "0x0F", "Unit": "UPI LL",
     "PerPkg": "1", "BriefDescription": "UPI data flits"},
    {"EventName": "UNC_C_LLC_LOOKUP.ANY", "EventCode": "0x34", "UMask": "0x11", "Unit": "CBO",
     "Filter": "filter_state=0x1f", "BriefDescription": "LLC lookups"},
    {"EventName": "UNC_ARB_TRK_REQUESTS.ALL", "EventCode": "0x81", "UMask": "0x01", "Unit": "iMPH-U",
     "CounterMask": "1", "EdgeDetect": "1", "Invert": "0"},
    {"EventName": "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY", "EventCode": "0xB7, 0xBB", "UMask": "0x01",
     "MSRIndex": "0x1a6,0x1a7", "MSRValue": "0x10001", "Counter": "0,1,2,3"},
    {"EventName": "UNC_U_EXT_SEL", "EventCode": "0x04", "ExtSel": "1", "Unit": "UBOX"}
  ]
})";

std::string load_error(const char* text) {
  try {
    PerfmonEvents::parse(text, "sample.json");
  } catch (const pmukit::Error& e) {
    return e.what();
  }
  return "(loaded)";
}

}  // namespace

TEST(PerfmonJson, ImcCasCountBecomesTheKernelsTerms) {
  auto events = PerfmonEvents::parse(kArrayFile, "imc.json");
  ASSERT_EQ(events.events().size(), 3u);
  const PerfmonEvent* rd = events.find("UNC_M_CAS_COUNT.RD");
  ASSERT_NE(rd, nullptr);
  EXPECT_EQ(rd->pmu_type, "uncore_imc");
  EXPECT_EQ(rd->terms, "event=0x05,umask=0xcf");
  EXPECT_EQ(rd->event_code, 0x05u);
  EXPECT_EQ(rd->umask, 0xcfu);
  EXPECT_EQ(rd->scale, 64.0);
  EXPECT_EQ(rd->scale_unit, "Bytes");
  EXPECT_EQ(rd->description, "read CAS commands issued to DRAM");
  EXPECT_EQ(rd->counter, "0,1,2,3");
  EXPECT_TRUE(rd->per_pkg);
  EXPECT_FALSE(rd->deprecated);
  EXPECT_EQ(events.find("UNC_M_CAS_COUNT.WR")->terms, "event=0x05,umask=0xf0");
  // A zero umask is left out; the event code never is.
  EXPECT_EQ(events.find("UNC_M_CLOCKTICKS")->terms, "event=0x01");
  EXPECT_EQ(events.find("UNC_M_CLOCKTICKS")->scale, 1.0);
}

TEST(PerfmonJson, EventsBecomeAliasesOfTheSharedPmuDescription) {
  auto events = PerfmonEvents::parse(kArrayFile, "imc.json");
  pmukit::syntax::EventAlias a = events.find("UNC_M_CAS_COUNT.WR")->alias();
  EXPECT_EQ(a.name, "unc_m_cas_count.wr");
  EXPECT_EQ(a.terms, "event=0x05,umask=0xf0");
  EXPECT_EQ(a.scale, 64.0);
  EXPECT_EQ(a.unit, "Bytes");
}

TEST(PerfmonJson, NamesAreFoundWithoutRegardToCase) {
  auto events = PerfmonEvents::parse(kArrayFile, "imc.json");
  EXPECT_EQ(events.find("unc_m_cas_count.rd"), events.find("UNC_M_CAS_COUNT.RD"));
  EXPECT_EQ(events.find("UNC_M_CAS_COUNT"), nullptr);
}

TEST(PerfmonJson, HeaderAndEventsLayoutAndTheFieldsThatNeedCare) {
  auto events = PerfmonEvents::parse(kHeaderFile, "sample.json");
  ASSERT_EQ(events.events().size(), 8u);
  const auto* tor = events.find("UNC_CHA_TOR_INSERTS.IA_MISS");
  EXPECT_EQ(tor->pmu_type, "uncore_cha");
  EXPECT_EQ(tor->terms, "event=0x35,umask=0xc001fe01");
  EXPECT_TRUE(tor->experimental);
  const auto* wide = events.find("UNC_M2HBM_WIDE.X");
  EXPECT_EQ(wide->pmu_type, "uncore_m2hbm");
  EXPECT_EQ(wide->terms, "event=0x2d,umask=0x320");  // umask wider than 8 bits is kept whole
  EXPECT_EQ(wide->umask, 0x320u);
  EXPECT_TRUE(wide->deprecated);
  const auto* iio = events.find("UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0");
  EXPECT_EQ(iio->pmu_type, "uncore_iio");
  EXPECT_EQ(iio->terms, "event=0x83,umask=0x04,ch_mask=0x01,fc_mask=0x07");
  EXPECT_EQ(iio->scale, 4.0);
  EXPECT_EQ(events.find("UNC_UPI_TXL_FLITS.ALL_DATA")->pmu_type, "uncore_upi");
  const auto* cbo = events.find("UNC_C_LLC_LOOKUP.ANY");
  EXPECT_EQ(cbo->pmu_type, "uncore_cbox");
  EXPECT_EQ(cbo->terms, "event=0x34,umask=0x11,filter_state=0x1f");
  EXPECT_FALSE(cbo->per_pkg);
  const auto* arb = events.find("UNC_ARB_TRK_REQUESTS.ALL");
  EXPECT_EQ(arb->pmu_type, "uncore_arb");
  EXPECT_EQ(arb->terms,
            "event=0x81,umask=0x01,cmask=1,edge=1");  // decimal stays decimal, inv=0 left out
  const auto* ocr = events.find("OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY");
  EXPECT_EQ(ocr->pmu_type, "cpu");                                     // no Unit: a core event
  EXPECT_EQ(ocr->terms, "event=0xb7,umask=0x01,offcore_rsp=0x10001");  // first code of the pair
  EXPECT_EQ(events.find("UNC_U_EXT_SEL")->terms, "event=0x104");       // ExtSel << 8
  EXPECT_EQ(events.find("UNC_U_EXT_SEL")->event_code, 0x104u);
}

TEST(PerfmonJson, UnitsMapLikeJevents) {
  EXPECT_EQ(unit_to_pmu_type("IMC"), "uncore_imc");
  EXPECT_EQ(unit_to_pmu_type("B2CXL"), "uncore_b2cxl");
  EXPECT_EQ(unit_to_pmu_type("CBO"), "uncore_cbox");
  EXPECT_EQ(unit_to_pmu_type("QPI LL"), "uncore_qpi");
  EXPECT_EQ(unit_to_pmu_type("SBO"), "uncore_sbox");
  EXPECT_EQ(unit_to_pmu_type("iMPH-U"), "uncore_arb");
  EXPECT_EQ(unit_to_pmu_type("UPI LL"), "uncore_upi");
  EXPECT_EQ(unit_to_pmu_type("arm_cmn"), "arm_cmn");
  EXPECT_EQ(unit_to_pmu_type(""), "cpu");
}

TEST(PerfmonJson, ScaleUnitWithAFractionalScale) {
  auto events = PerfmonEvents::parse(
      R"([{"EventName": "X", "EventCode": "0x05", "UMask": "0xcf", "Unit": "IMC", "ScaleUnit": "6.103515625e-5MiB"}])",
      "x.json");
  EXPECT_EQ(events.events()[0].scale, 6.103515625e-5);
  EXPECT_EQ(events.events()[0].scale_unit, "MiB");
}

TEST(PerfmonJson, ErrorsNameTheFileAndTheEvent) {
  EXPECT_EQ(load_error(R"([{"EventName": "UNC_M_X", "EventCode": "0x05", "UMask": "zz"}])"),
            "sample.json: event 'UNC_M_X': UMask 'zz' is not a number");
  EXPECT_EQ(load_error(R"([{"EventName": "UNC_M_X", "EventCode": "0x05", "PerPkg": "yes"}])"),
            "sample.json: event 'UNC_M_X': PerPkg is 'yes', not 0 or 1");
  EXPECT_EQ(load_error(R"([{"EventName": "UNC_M_X", "EventCode": ["0x05"]}])"),
            "sample.json: event 'UNC_M_X': EventCode must be a string");
  EXPECT_EQ(load_error(R"([{"EventName": "OCR", "EventCode": "0xb7", "MSRIndex": "0x123", "MSRValue": "1"}])"),
            "sample.json: event 'OCR': MSRIndex 0x123 is not one perf knows");
  EXPECT_EQ(load_error(R"([{"EventCode": "0x05"}, {"EventName": "B"}])"), "sample.json: events[0]: no EventName");
  EXPECT_EQ(load_error(R"([{"EventName": "A"}, 7])"), "sample.json: events[1]: not a JSON object");
  EXPECT_EQ(load_error(R"({"Header": {}, "Events": {}})"),
            "sample.json: expected an array of events or {\"Header\": ..., \"Events\": [...]}");
  EXPECT_EQ(load_error(R"("events")"),
            "sample.json: expected an array of events or {\"Header\": ..., \"Events\": [...]}");
  EXPECT_EQ(load_error("[{").rfind("sample.json: not valid JSON: ", 0), 0u);
  // Found by fuzz_perfmon_json: a number too large for a double is nlohmann's out_of_range (406), not
  // a parse_error, and used to end the process uncaught.
  EXPECT_EQ(load_error("1444444444444444444444446.4e44444").rfind("sample.json: not valid JSON: ", 0), 0u);
}

TEST(PerfmonJson, LoadsFromAPathAndNamesAMissingOne) {
  pmukit::test::TempDir dir;
  pmukit::write_file(dir / "uncore-memory.json", kArrayFile);
  auto events = PerfmonEvents::load(dir / "uncore-memory.json");
  EXPECT_EQ(events.events().size(), 3u);
  try {
    PerfmonEvents::load(dir / "nope.json");
    FAIL();
  } catch (const pmukit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope.json"), std::string::npos) << e.what();
  }
  pmukit::write_file(dir / "bad.json", R"([{"EventName": "UNC_M_Y", "EventCode": "5x"}])");
  try {
    PerfmonEvents::load(dir / "bad.json");
    FAIL();
  } catch (const pmukit::Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "bad.json").string() + ": event 'UNC_M_Y': EventCode '5x' is not a number");
  }
}
