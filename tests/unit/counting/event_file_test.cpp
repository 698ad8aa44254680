// perf's event names in -e (counting/event_file.h): a name of a file becomes its PMU and terms,
// bare (unc_m_cas_count.rd) or on a PMU (uncore_imc_3/UNC_M_CAS_COUNT.RD/), in any case; the
// first file that names an event wins; a name the kernel gives a PMU here keeps its meaning; and
// another PMU's event is not taken as this PMU's name.
#include <gtest/gtest.h>

#include "pmukit/counting/event_file.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"

using namespace pmukit;

namespace {

const char* kFirst = R"({"Events": [
  {"EventName": "UNC_M_CAS_COUNT.RD", "EventCode": "0x05", "UMask": "0xcf", "Unit": "iMC"},
  {"EventName": "CAS_COUNT_READ", "EventCode": "0x05", "UMask": "0x01", "Unit": "iMC"}]})";
const char* kSecond = R"({"Events": [
  {"EventName": "UNC_M_CAS_COUNT.RD", "EventCode": "0x05", "UMask": "0x0f", "Unit": "iMC"},
  {"EventName": "UNC_CHA_CLOCKTICKS", "EventCode": "0x01", "Unit": "CHA"}]})";

std::vector<syntax::EventSpec> rewritten(const std::string& list, const std::set<std::string, std::less<>>& kernel) {
  const auto first = events::PerfmonEvents::parse(kFirst, "first");
  const auto second = events::PerfmonEvents::parse(kSecond, "second");
  auto specs = syntax::parse_event_list(list);
  counting::apply_event_files({&first, &second}, specs, kernel);
  return specs;
}

std::string terms_of(const syntax::EventSpec& s) {
  std::string out = s.pmu + "/";
  for (const auto& t : s.terms) out += t.key + (t.value ? "=" + *t.value : "") + ",";
  return out;
}

}  // namespace

TEST(EventFile, BareAndPmuQualifiedNamesInAnyCase) {
  const auto specs = rewritten("unc_m_cas_count.rd,UNC_M_CAS_COUNT.RD,uncore_imc/unc_m_cas_count.rd/,"
                               "uncore_imc_3/Unc_M_Cas_Count.Rd,name=x/",
                               {});
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(terms_of(specs[0]), "uncore_imc/event=0x05,umask=0xcf,");  // the first file's
  EXPECT_EQ(specs[0].name, "unc_m_cas_count.rd");                      // as written, as perf shows it
  EXPECT_EQ(specs[1].name, "UNC_M_CAS_COUNT.RD");
  EXPECT_EQ(terms_of(specs[1]), "uncore_imc/event=0x05,umask=0xcf,");
  EXPECT_EQ(terms_of(specs[2]), "uncore_imc/event=0x05,umask=0xcf,");
  EXPECT_EQ(terms_of(specs[3]), "uncore_imc_3/event=0x05,umask=0xcf,");
  EXPECT_EQ(specs[3].name, "x");
}

TEST(EventFile, TheKernelsNamesKeepTheirMeaning) {
  const auto specs =
      rewritten("cas_count_read,uncore_imc/cas_count_read/,uncore_imc/unc_m_cas_count.rd/", {"cas_count_read"});
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(terms_of(specs[0]), "/cas_count_read,");
  EXPECT_EQ(terms_of(specs[1]), "uncore_imc/cas_count_read,");
  EXPECT_EQ(terms_of(specs[2]), "uncore_imc/event=0x05,umask=0xcf,");
  // Without the kernel's name, the file's event of that name is taken.
  EXPECT_EQ(terms_of(rewritten("uncore_imc/cas_count_read/", {})[0]), "uncore_imc/event=0x05,umask=0x01,");
}

TEST(EventFile, AnotherPmusEventIsNotThisPmusName) {
  const auto specs = rewritten("uncore_cha/unc_m_cas_count.rd/,uncore_cha_2/unc_cha_clockticks/", {});
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(terms_of(specs[0]), "uncore_cha/unc_m_cas_count.rd,");  // left for the encoder to refuse
  EXPECT_EQ(terms_of(specs[1]), "uncore_cha_2/event=0x01,");
}

TEST(EventFile, AMisspeltNameGetsTheNearestOfTheFiles) {
  auto error_of = [](const std::string& list, const std::set<std::string, std::less<>>& kernel) -> std::string {
    try {
      rewritten(list, kernel);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of("unc_m_cas_count.rdd", {}),
            "event 'unc_m_cas_count.rdd': no event of that name (did you mean 'unc_m_cas_count.rd'?)");
  EXPECT_EQ(error_of("uncore_imc/unc_m_cas_cuont.rd/", {}),
            "event 'uncore_imc/unc_m_cas_cuont.rd/': unknown term 'unc_m_cas_cuont.rd' for pmu 'uncore_imc' (did you "
            "mean 'unc_m_cas_count.rd'?)");
  // Only the events of the PMU written are offered: a CHA name is not an IMC's.
  EXPECT_EQ(error_of("uncore_imc/unc_cha_clocktick/", {}), "");
  EXPECT_NE(error_of("uncore_cha_2/unc_cha_clocktick/", {}).find("(did you mean 'unc_cha_clockticks'?)"),
            std::string::npos);
  // Names far from every event, terms with values and the kernel's own names are left to the encoder.
  EXPECT_EQ(error_of("cycles,uncore_imc/edge/,uncore_imc/unc_m_cas_count.rdd=1/", {}), "");
  EXPECT_EQ(error_of("unc_m_cas_count.rdx", {"unc_m_cas_count.rdx"}), "");  // the kernel's, however near
  // A bare name may be near the kernel's names too; on a PMU, the encoder offers that PMU's own.
  EXPECT_EQ(error_of("cas_count_reed", {"cas_count_read"}),
            "event 'cas_count_reed': no event of that name (did you mean 'cas_count_read'?)");
  EXPECT_EQ(error_of("uncore_imc/cas_count_reed/", {"cas_count_read"}), "");
}
