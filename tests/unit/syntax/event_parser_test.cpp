// parse_event_list / parse_terms: every grammar case of event_spec.h, and errors that name the
// event and the column.
#include <gtest/gtest.h>

#include "pmukit/syntax/event_parser.h"

using namespace pmukit;
using namespace pmukit::syntax;

namespace {

std::string terms_str(const EventSpec& e) {
  std::string s;
  for (const auto& t : e.terms) {
    if (!s.empty()) s += ',';
    s += t.key;
    if (t.value) s += "=" + *t.value;
  }
  return s;
}

// The message and column of the syntax error `text` raises; fails the test if it parses.
std::pair<std::string, std::size_t> syntax_error(std::string_view text) {
  try {
    parse_event_list(text);
  } catch (const EventSyntaxError& e) {
    return {e.what(), e.column()};
  }
  ADD_FAILURE() << "'" << text << "' parsed without error";
  return {"", 0};
}

}  // namespace

TEST(EventParser, PmuEventWithTerms) {
  auto list = parse_event_list("uncore_imc_0/event=0x04,umask=0x03/");
  ASSERT_EQ(list.size(), 1u);
  const auto& e = list[0];
  EXPECT_EQ(e.pmu, "uncore_imc_0");
  EXPECT_EQ(terms_str(e), "event=0x04,umask=0x03");
  EXPECT_EQ(e.name, "");
  EXPECT_EQ(e.modifiers, "");
  EXPECT_EQ(e.text, "uncore_imc_0/event=0x04,umask=0x03/");
  EXPECT_EQ(e.group, -1);
}

TEST(EventParser, BareAliasTermHasNoValue) {
  auto e = parse_event_list("uncore_imc/cas_count_read/").at(0);
  ASSERT_EQ(e.terms.size(), 1u);
  EXPECT_EQ(e.terms[0].key, "cas_count_read");
  EXPECT_FALSE(e.terms[0].value.has_value());
}

TEST(EventParser, NameTermBecomesTheLabel) {
  auto e = parse_event_list("uncore_imc_3/cas_count_read,name=reads/").at(0);
  EXPECT_EQ(e.name, "reads");
  EXPECT_EQ(terms_str(e), "cas_count_read");
  EXPECT_EQ(e.text, "uncore_imc_3/cas_count_read,name=reads/");
}

TEST(EventParser, QuotedNamesMayHoldSpacesAndCommas) {
  EXPECT_EQ(parse_event_list("msr/tsc,name='x y'/").at(0).name, "x y");
  EXPECT_EQ(parse_event_list("msr/name=\"a,b\",tsc/").at(0).name, "a,b");
}

TEST(EventParser, EmptyTermListIsAccepted) {
  auto e = parse_event_list("msr//").at(0);
  EXPECT_EQ(e.pmu, "msr");
  EXPECT_TRUE(e.terms.empty());
}

TEST(EventParser, ModifiersInPerfFormAndColonForm) {
  auto a = parse_event_list("msr/tsc/u").at(0);
  EXPECT_EQ(a.modifiers, "u");
  EXPECT_EQ(a.text, "msr/tsc/u");
  auto b = parse_event_list("msr/tsc/:uk").at(0);
  EXPECT_EQ(b.modifiers, "uk");
  EXPECT_EQ(terms_str(b), "tsc");
}

TEST(EventParser, CommaListKeepsOrderAndSkipsSpaces) {
  auto list = parse_event_list(" msr/ tsc /,  software/config=1/ , duration_time ");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].pmu, "msr");
  EXPECT_EQ(terms_str(list[0]), "tsc");
  EXPECT_EQ(list[1].pmu, "software");
  EXPECT_EQ(terms_str(list[1]), "config=1");
  EXPECT_EQ(list[2].pmu, "");
  EXPECT_EQ(terms_str(list[2]), "duration_time");
  EXPECT_EQ(list[2].text, "duration_time");
}

TEST(EventParser, GroupsGetIndexesAndShareGroupModifiers) {
  auto list =
      parse_event_list("{uncore_imc_0/cas_count_read/,uncore_imc_0/event=0x1/k}:u,msr/tsc/,{software/config=0/}");
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0].group, 0);
  EXPECT_EQ(list[1].group, 0);
  EXPECT_EQ(list[2].group, -1);
  EXPECT_EQ(list[3].group, 1);
  EXPECT_EQ(list[0].modifiers, "u");
  EXPECT_EQ(list[1].modifiers, "ku");
  EXPECT_EQ(list[1].text, "uncore_imc_0/event=0x1/k");
  EXPECT_EQ(list[2].modifiers, "");
}

TEST(EventParser, BareNamesModifiersAndTracepoints) {
  auto list = parse_event_list("cpu-clock:k,sched:sched_switch,sched:sched_switch:u,r1a8");
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(terms_str(list[0]), "cpu-clock");
  EXPECT_EQ(list[0].modifiers, "k");
  EXPECT_EQ(terms_str(list[1]), "sched:sched_switch");
  EXPECT_EQ(list[1].modifiers, "");
  EXPECT_EQ(terms_str(list[2]), "sched:sched_switch");
  EXPECT_EQ(list[2].modifiers, "u");
  EXPECT_EQ(terms_str(list[3]), "r1a8");
}

TEST(EventParser, ValuesAndKeysKeepTheirText) {
  auto e = parse_event_list("dwc_rootport_3018/eventid=0x20,type=0x0,lane=7,config1=010/").at(0);
  EXPECT_EQ(terms_str(e), "eventid=0x20,type=0x0,lane=7,config1=010");
  auto d = parse_event_list("cpu/unc_m_cas_count.rd,event=cas_count_read,src_bdf_en/").at(0);
  EXPECT_EQ(terms_str(d), "unc_m_cas_count.rd,event=cas_count_read,src_bdf_en");
}

TEST(EventParser, MissingClosingSlashNamesTheEventAndColumn) {
  auto [msg, col] = syntax_error("uncore_imc/event=0x5");
  EXPECT_EQ(msg, "event 'uncore_imc/event=0x5': missing closing '/' (column 11)");
  EXPECT_EQ(col, 11u);
}

TEST(EventParser, ColumnsCountFromTheStartOfTheWholeList) {
  auto [msg, col] = syntax_error("msr/tsc/,uncore_imc_0/event=0x1,/");
  EXPECT_EQ(col, 32u);
  EXPECT_NE(msg.find("empty term after ','"), std::string::npos) << msg;
  EXPECT_NE(msg.find("event 'uncore_imc_0/event=0x1,/'"), std::string::npos) << msg;
}

TEST(EventParser, SyntaxErrors) {
  struct Case {
    const char* text;
    const char* reason;
    std::size_t column;
  };
  const Case cases[] = {
      {"", "event list is empty", 1},
      {"   ", "event list is empty", 1},
      {"msr/tsc/,,duration_time", "empty event after ','", 9},
      {"msr/tsc/,", "empty event after ','", 9},
      {",msr/tsc/", "unexpected ',' where an event should be", 1},
      {"msr/,event=1/", "unexpected ',' where a term should be", 5},
      {"msr/event=1,,umask=2/", "empty term after ','", 12},
      {"msr/event=/", "term 'event' has no value after '='", 10},
      {"msr/=5/", "a term has no name before '='", 5},
      {"msr/event=1 umask=2/", "unexpected 'u' after a term", 13},
      {"msr/name=a=b/", "unexpected '=' after a term", 11},
      {"msr/name/", "term 'name' needs a value", 1},
      {"msr/tsc,name='x y/", "missing closing ' in the value of 'name'", 14},
      {"msr/tsc/q", "unknown modifier 'q'", 9},
      {"msr/tsc/:", "no modifiers after ':'", 9},
      {"msr/tsc/ x", "unexpected 'x' after the event", 10},
      {"msr/tsc/}", "unexpected '}' after the event", 9},
      {"cpu-clock:", "nothing after ':'", 10},
      {"{msr/tsc/", "missing closing '}'", 1},
      {"{}", "empty group", 2},
      {"{msr/tsc/,}", "empty event in the group", 11},
      {"{msr/tsc/,{software//}}", "groups cannot nest", 11},
      {"{msr/tsc/}:z", "unknown modifier 'z'", 12},
      {"{msr/tsc/ software//}", "unexpected 's' after an event in the group", 11},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto [msg, col] = syntax_error(c.text);
    EXPECT_NE(msg.find(c.reason), std::string::npos) << msg;
    EXPECT_EQ(col, c.column) << msg;
  }
}

TEST(EventParser, SyntaxErrorsAreUsageErrors) {
  EXPECT_THROW(parse_event_list("msr/tsc"), UsageError);
}

TEST(EventParser, AliasFileTerms) {
  auto terms = parse_terms("event=0x04,umask=0x03\n");
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[0].key, "event");
  EXPECT_EQ(terms[0].value, "0x04");
  EXPECT_EQ(terms[1].key, "umask");
  EXPECT_EQ(terms[1].value, "0x03");
  auto param = parse_terms("event=0x35,core=?");
  EXPECT_EQ(param.at(1).value, "?");
}

TEST(EventParser, AliasFileTermErrorsNameTheText) {
  try {
    parse_terms("event=0x04,");
    FAIL();
  } catch (const EventSyntaxError& e) {
    EXPECT_STREQ(e.what(), "terms 'event=0x04,': empty term after ',' (column 11)");
  }
  EXPECT_THROW(parse_terms("\n"), EventSyntaxError);
  EXPECT_THROW(parse_terms("event=1/"), EventSyntaxError);
}

TEST(EventParser, ModifierAlphabetIsPerfs) {
  for (char c : std::string("ukhpPGHSDIWeb")) EXPECT_TRUE(is_modifier_char(c)) << c;
  for (char c : std::string("aqxz0:\0", 7)) EXPECT_FALSE(is_modifier_char(c)) << c;
}
