// pmukit tests -- the Linux kernel's Intel uncore PMU types as literals: each type's name, the
// format/ attributes sysfs shows for it and the event masks its config is cut to, written here from
// the kernel source (intel/mainline-tracking 0cefaca84579, arch/x86/events/intel/): uncore_snbep.c
// DEFINE_UNCORE_FORMAT_ATTR (event "config:0-7", umask "config:8-15", umask_ext4 "config:8-15,32-55",
// umask_ext5 "config:8-15,32-63", tid_en2 "config:16", edge "config:18", inv "config:23", inv2
// "config:21", thresh8 "config:24-31", thresh9 "config:24-35", thresh9_2 "config:23-31", thresh10
// "config:23-32", thresh_ext "config:32-35", ch_mask2 "config:36-47", fc_mask2 "config:48-50",
// port_en "config:32-35", rs3_sel 36, rx_sel 37, tx_sel 38, iep_sel 39, vc_sel "config:40-47",
// port_sel "config:48-55", filter_tid5 "config1:0-9"), and uncore_discovery.c's generic group. Not
// from pmukit's platform files: the tests compare those with these.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pmukit::test::kernel {

// A format group: sysfs term -> "config:..." as format/<term> reads, and the type's masks.
struct Group {
  std::map<std::string, std::string> formats;
  std::uint64_t event_mask = 0, event_mask_ext = 0;
  std::uint64_t keep() const { return event_mask | event_mask_ext << 32; }
};

// GENERIC_PMON_RAW_EVENT_MASK and SNBEP_PMON_RAW_EVENT_MASK: event, umask, edge (18), inv (23), thresh.
constexpr std::uint64_t kRawMask = 0xff84ffff;

// uncore_discovery.c generic_uncore_formats_attr: what intel_uncore_generic_init_uncores gives every
// discovered type, kept where the platform's type sets only a name (spr_uncore_pcu, gnr_uncore_ubox,
// gnr_uncore_b2hot, gnr_uncore_mdf_sbo, dmr_uncore_crs/cms) or is NULL in the platform's table.
inline const Group kGeneric{{{"event", "config:0-7"},
                             {"umask", "config:8-15"},
                             {"edge", "config:18"},
                             {"inv", "config:23"},
                             {"thresh", "config:24-31"}},
                            kRawMask,
                            0};
// spr_uncore_raw_formats_attr (SPR_UNCORE_COMMON_FORMAT: SPR_RAW_EVENT_MASK_EXT 0xffffff).
inline const Group kSprRaw{{{"event", "config:0-7"},
                            {"umask", "config:8-15,32-55"},
                            {"edge", "config:18"},
                            {"inv", "config:23"},
                            {"thresh", "config:24-31"}},
                           kRawMask,
                           0xffffff};
// spr_uncore_cha_formats_attr (spr_uncore_chabox: SPR_CHA_PMON_EVENT_MASK adds TID_EN bit 16,
// SPR_CHA_EVENT_MASK_EXT 0xffffffff).
inline const Group kSprCha{{{"event", "config:0-7"},
                            {"umask", "config:8-15,32-63"},
                            {"tid_en", "config:16"},
                            {"edge", "config:18"},
                            {"inv", "config:23"},
                            {"thresh", "config:24-31"},
                            {"filter_tid", "config1:0-9"}},
                           kRawMask | 1u << 16,
                           0xffffffff};
// snr_uncore_iio_formats_attr (spr_uncore_iio: SNR_IIO_PMON_RAW_EVENT_MASK_EXT 0x7ffff).
inline const Group kSnrIio{{{"event", "config:0-7"},
                            {"umask", "config:8-15"},
                            {"edge", "config:18"},
                            {"inv", "config:23"},
                            {"thresh", "config:24-35"},
                            {"ch_mask", "config:36-47"},
                            {"fc_mask", "config:48-50"}},
                           kRawMask,
                           0x7ffff};
// dmr_imc_uncore_formats_attr (dmr_uncore_imc sets no event_mask: the generic one).
inline const Group kDmrImc{
    {{"event", "config:0-7"}, {"edge", "config:18"}, {"inv", "config:23"}, {"thresh", "config:23-32"}}, kRawMask, 0};
// dmr_sca_uncore_formats_attr (DMR_HAMVF_EVENT_MASK_EXT 0xffffffff): sca, hamvf, ula, ubr, cpc, itc, otc.
inline const Group kDmrSca{{{"event", "config:0-7"},
                            {"umask", "config:8-15,32-63"},
                            {"edge", "config:18"},
                            {"inv", "config:23"},
                            {"thresh", "config:24-31"}},
                           kRawMask,
                           0xffffffff};
// dmr_cxlcm_uncore_formats_attr (GENERIC_PMON_RAW_EVENT_MASK, DMR_CXLCM_EVENT_MASK_EXT 0xf).
inline const Group kDmrCxlcm{{{"event", "config:0-7"},
                              {"umask", "config:8-15"},
                              {"edge", "config:18"},
                              {"inv", "config:21"},
                              {"thresh", "config:23-31"},
                              {"port_en", "config:32-35"}},
                             kRawMask,
                             0xf};
// dmr_pcie4_uncore_formats_attr (DMR_PCIE4_EVENT_MASK_EXT 0xffffff): pcie4 and pcie6.
inline const Group kDmrPcie4{{{"event", "config:0-7"},
                              {"umask", "config:8-15"},
                              {"edge", "config:18"},
                              {"inv", "config:23"},
                              {"thresh", "config:24-31"},
                              {"thresh_ext", "config:32-35"},
                              {"rs3_sel", "config:36"},
                              {"rx_sel", "config:37"},
                              {"tx_sel", "config:38"},
                              {"iep_sel", "config:39"},
                              {"vc_sel", "config:40-47"},
                              {"port_sel", "config:48-55"}},
                             kRawMask,
                             0xffffff};

// A discovery type as the kernel names and formats it; an empty name is a NULL entry of the
// platform's table (the PMU is uncore_type_<type>_<box>).
struct Type {
  std::string name;
  const Group* group;
};

// spr_uncores[] (UNCORE_SPR_NUM_UNCORE_TYPES 15), with spr_uncore_upi and spr_uncore_m3upi, which the
// kernel builds from PCI ids for types 8 and 9 (spr_uncore_units_ignore).
inline std::map<int, Type> spr_types() {
  return {{0, {"cha", &kSprCha}},   {1, {"iio", &kSnrIio}},  {2, {"irp", &kSprRaw}},    {3, {"m2pcie", &kSprRaw}},
          {4, {"pcu", &kGeneric}},  {6, {"imc", &kSprRaw}},  {7, {"m2m", &kSprRaw}},    {8, {"upi", &kSprRaw}},
          {9, {"m3upi", &kSprRaw}}, {11, {"mdf", &kSprRaw}}, {12, {"cxlcm", &kSprRaw}}, {13, {"cxldp", &kSprRaw}},
          {14, {"hbm", &kSprRaw}}};
}

// gnr_uncores[] (UNCORE_GNR_NUM_UNCORE_TYPES 23).
inline std::map<int, Type> gnr_types() {
  return {
      {0, {"cha", &kSprCha}},    {1, {"iio", &kSnrIio}},       {2, {"irp", &kSprRaw}},      {4, {"pcu", &kGeneric}},
      {5, {"ubox", &kGeneric}},  {6, {"imc", &kSprRaw}},       {8, {"upi", &kSprRaw}},      {12, {"cxlcm", &kSprRaw}},
      {13, {"cxldp", &kSprRaw}}, {15, {"b2hot", &kGeneric}},   {16, {"b2cmi", &kSprRaw}},   {17, {"b2cxl", &kSprRaw}},
      {18, {"b2upi", &kSprRaw}}, {20, {"mdf_sbo", &kGeneric}}, {21, {"pciex16", &kSprRaw}}, {22, {"pciex8", &kSprRaw}}};
}

// dmr_uncores[] (UNCORE_DMR_NUM_UNCORE_TYPES 52); types it leaves NULL keep the generic group.
inline std::map<int, Type> dmr_types() {
  return {{4, {"pcu", &kGeneric}},     {5, {"ubox", &kGeneric}},  {6, {"imc", &kDmrImc}},     {23, {"sca", &kDmrSca}},
          {24, {"cxlcm", &kDmrCxlcm}}, {30, {"hamvf", &kDmrSca}}, {35, {"ula", &kDmrSca}},    {43, {"ubr", &kDmrSca}},
          {45, {"pcie4", &kDmrPcie4}}, {46, {"crs", &kGeneric}},  {47, {"cpc", &kDmrSca}},    {48, {"itc", &kDmrSca}},
          {49, {"otc", &kDmrSca}},     {50, {"cms", &kGeneric}},  {51, {"pcie6", &kDmrPcie4}}};
}

// perf's packing of a term's value into its format (tools/perf/util/pmu.c pmu_format_value): the
// value's bits, low first, into the format's bits, low first; a value wider than the format is an
// error ("value too big for format"). Returns {config word index, bits to OR in}.
inline std::optional<std::pair<int, std::uint64_t>> perf_pack(const std::string& bits, std::uint64_t value) {
  const auto colon = bits.find(':');
  const std::string word = bits.substr(0, colon);
  const int index = word == "config" ? 0 : word == "config1" ? 1 : word == "config2" ? 2 : -1;
  std::vector<unsigned> positions;
  std::string rest = bits.substr(colon + 1);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string part = rest.substr(0, comma);
    const auto dash = part.find('-');
    const unsigned lo = static_cast<unsigned>(std::stoul(part.substr(0, dash)));
    const unsigned hi = dash == std::string::npos ? lo : static_cast<unsigned>(std::stoul(part.substr(dash + 1)));
    for (unsigned b = lo; b <= hi; ++b) positions.push_back(b);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  if (index < 0 || (positions.size() < 64 && value >> positions.size())) return std::nullopt;
  std::uint64_t out = 0;
  for (std::size_t i = 0; i < positions.size(); ++i) out |= (value >> i & 1) << positions[i];
  return std::pair{index, out};
}

}  // namespace pmukit::test::kernel
