// Every Intel uncore unit type pmukit knows has the kernel's format/ attributes -- term names and
// bit ranges as sysfs shows them -- and the kernel's event mask, type by type for SPR/EMR, GNR and
// DMR, including the types the platform tables leave unnamed. Expected values are the kernel's
// (support/kernel_uncore_formats.h, written from uncore_snbep.c and uncore_discovery.c).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "pmukit/platform/database.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"
#include "support/kernel_uncore_formats.h"

using namespace pmukit;
namespace kernel = test::kernel;

namespace {

// Differences between a pmukit PMU kind and the kernel's group for one type, one per line.
std::string compare(const std::string& what, const platform::PmuKind& kind, const kernel::Group& want) {
  std::string out;
  for (const auto& [term, bits] : want.formats) {
    auto it = kind.formats.find(term);
    if (it == kind.formats.end())
      out += fmt::format("{}: no format '{}' (kernel: {})\n", what, term, bits);
    else if (it->second != bits)
      out += fmt::format("{}: format '{}' is {}, kernel: {}\n", what, term, it->second, bits);
  }
  for (const auto& [term, bits] : kind.formats)
    if (!want.formats.count(term))
      out += fmt::format("{}: format '{}' ({}) the kernel does not have\n", what, term, bits);
  if (!kind.config_mask || *kind.config_mask != want.keep())
    out += fmt::format("{}: config mask {:#x}, kernel: event_mask | event_mask_ext << 32 = {:#x}\n", what,
                       kind.config_mask.value_or(0), want.keep());
  return out;
}

std::string compare_platform(const std::string& table, const std::map<int, kernel::Type>& kernel_types) {
  const auto& db = platform::Database::builtin();
  const auto* u = db.intel_uncore(table);
  if (!u) return table + ": no such table\n";
  std::string out;
  for (const auto& [type, box] : u->box_types) {
    const std::string what = fmt::format("{} type {} ({}, kind {})", table, type, box.name, box.pmu_kind);
    const auto k = kernel_types.find(type);
    const kernel::Group& want = k == kernel_types.end() ? kernel::kGeneric : *k->second.group;
    if (k != kernel_types.end() && k->second.name != box.name)
      out += fmt::format("{}: the kernel names it '{}'\n", what, k->second.name);
    const auto* kind = db.pmu_kind(box.pmu_kind);
    if (!kind) {
      out += what + ": unknown kind\n";
      continue;
    }
    out += compare(what, *kind, want);
  }
  for (const auto& [type, t] : kernel_types)
    if (!u->box_types.count(static_cast<std::uint16_t>(type)))
      out += fmt::format("{}: the kernel's type {} ({}) is missing\n", table, type, t.name);
  // A type the table does not list: the kernel's generic group (uncore_type_<type>_<box>).
  if (const auto* kind = db.pmu_kind(u->unnamed_pmu))
    out += compare(table + " unnamed types", *kind, kernel::kGeneric);
  else
    out += table + ": unknown unnamed_pmu kind\n";
  return out;
}

syntax::PmuDescription description(const std::string& kind) {
  syntax::PmuDescription d;
  for (const auto& [name, bits] : platform::Database::builtin().pmu_kind(kind)->formats)
    d.formats[name] = syntax::parse_format(name, bits);
  return d;
}

std::uint64_t encode(const std::string& kind, const std::string& terms) {
  return syntax::encode(syntax::parse_event_list("p/" + terms + "/").at(0), description(kind)).config;
}

}  // namespace

TEST(IntelFormats, SapphireRapidsTypesHaveTheKernelsFormats) {
  EXPECT_EQ(compare_platform("spr", kernel::spr_types()), "");
}

TEST(IntelFormats, GraniteRapidsTypesHaveTheKernelsFormats) {
  EXPECT_EQ(compare_platform("gnr", kernel::gnr_types()), "");
}

TEST(IntelFormats, DiamondRapidsTypesHaveTheKernelsFormats) {
  EXPECT_EQ(compare_platform("dmr", kernel::dmr_types()), "");
}

// The four types whose kernel type sets only a name take an 8-bit umask: perf refuses umask=0x100
// there ("value too big for format"), and so does pmukit; the SPR raw format spreads it to bit 32.
TEST(IntelFormats, PcuUboxAndMdfSboTakeAnEightBitUmask) {
  const auto& db = platform::Database::builtin();
  for (const auto& [table, type] :
       std::vector<std::pair<std::string, int>>{{"spr", 4}, {"gnr", 4}, {"gnr", 5}, {"gnr", 20}}) {
    const auto& kind = db.intel_uncore(table)->box_types.at(static_cast<std::uint16_t>(type)).pmu_kind;
    EXPECT_EQ(encode(kind, "event=0x2,umask=0xff"), 0xff02u) << table << " " << type;
    EXPECT_THROW(encode(kind, "event=0x2,umask=0x100"), UsageError) << table << " " << type;
  }
  EXPECT_EQ(encode("intel_spr_raw", "event=0x2,umask=0x100"), 0x100000002u);
}

// The kernel's sysfs term for the CHA TID filter is filter_tid (DEFINE_UNCORE_FORMAT_ATTR(filter_tid5,
// filter_tid, "config1:0-9"): the first name is the C identifier, the second the file name).
TEST(IntelFormats, ChaTidFilterTermIsTheSysfsName) {
  const auto d = description("intel_spr_cha");
  auto e = syntax::encode(syntax::parse_event_list("uncore_cha_1/event=0x35,tid_en=1,filter_tid=0x3/").at(0), d);
  EXPECT_EQ(e.config, 0x10035u);
  EXPECT_EQ(e.config1, 0x3u);
  EXPECT_THROW(syntax::encode(syntax::parse_event_list("uncore_cha_1/event=0x35,filter_tid5=0x3/").at(0), d),
               UsageError);
}
