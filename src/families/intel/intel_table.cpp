// pmukit -- Intel discovery table decoding with Linux's validity rules.
#include "pmukit/families/intel/intel_table.h"

#include <map>

#include <fmt/format.h>

#include "pmukit/families/intel/intel_regs.h"

namespace pmukit::discovery::intel {

using namespace regs::intel;

bool invalid_record(const std::uint64_t raw[3]) {
  return raw[0] == 0 || raw[1] == 0 || raw[0] == ~0ull || raw[1] == ~0ull || raw[2] == ~0ull;
}

std::uint64_t table_bytes(RegValue<GlobalTable1> t1) {
  return (1 + GlobalTable1::MaxUnits::get(t1)) * GlobalTable1::Stride::get(t1) * 8;
}

namespace {

bool read_record(const QwordReader& read, std::uint64_t at, std::uint64_t out[3]) {
  for (int q = 0; q < 3; ++q) {
    auto v = read(at + 8u * static_cast<unsigned>(q));
    if (!v) return false;
    out[q] = *v;
  }
  return true;
}

void decode_global(DecodedTable& t) {
  t.valid = true;
  const auto t1 = record_word<GlobalTable1>(t.global);
  const auto t3 = record_word<GlobalTable3>(t.global);
  t.type = static_cast<unsigned>(GlobalTable1::Type::get(t1));
  t.stride_bytes = static_cast<unsigned>(GlobalTable1::Stride::get(t1) * 8);
  t.max_units = static_cast<unsigned>(GlobalTable1::MaxUnits::get(t1));
  t.access_type = static_cast<unsigned>(GlobalTable1::AccessType::get(t1));
  t.global_ctl = record_word<GlobalCtl>(t.global).raw;
  t.status_offset = static_cast<unsigned>(GlobalTable3::StatusOffset::get(t3));
  t.num_status = static_cast<unsigned>(GlobalTable3::NumStatus::get(t3));
}

void decode_unit(DecodedUnit& u) {
  const auto t1 = record_word<UnitTable1>(u.raw);
  const auto t3 = record_word<UnitTable3>(u.raw);
  u.num_regs = static_cast<unsigned>(UnitTable1::NumRegs::get(t1));
  u.ctl_offset = static_cast<unsigned>(UnitTable1::CtlOffset::get(t1));
  u.bit_width = static_cast<unsigned>(UnitTable1::BitWidth::get(t1));
  u.ctr_offset = static_cast<unsigned>(UnitTable1::CtrOffset::get(t1));
  u.status_offset = static_cast<unsigned>(UnitTable1::StatusOffset::get(t1));
  u.access_type = static_cast<unsigned>(UnitTable1::AccessType::get(t1));
  u.box_ctl = record_word<UnitBoxCtl>(u.raw).raw;
  u.box_type = static_cast<std::uint16_t>(UnitTable3::BoxType::get(t3));
  u.box_id = static_cast<std::uint16_t>(UnitTable3::BoxId::get(t3));
}

// An invalid record: zero records are ordinary padding; all-ones means the table did not answer.
void count_invalid(DecodedTable& t, const DecodedUnit& u, const std::string& unit_where) {
  if (u.raw[0] == ~0ull || u.raw[2] == ~0ull) {
    t.warnings.push_back(fmt::format("{}: skipped: reads all ones", unit_where));
    ++t.skipped;
  } else if (u.raw[0] || u.raw[1] || u.raw[2]) {
    t.warnings.push_back(
        fmt::format("{}: skipped: invalid record {:#x} {:#x} {:#x}", unit_where, u.raw[0], u.raw[1], u.raw[2]));
    ++t.skipped;
  } else {
    ++t.empty;
  }
}

// Why a decoded unit cannot be used (Linux's rules), or "" when it can.
std::string unusable(const DecodedUnit& u) {
  if (u.access_type >= static_cast<unsigned>(AccessType::Unknown))
    return fmt::format("unsupported access type {}", u.access_type);
  if (u.ctl_offset == 0 || u.ctr_offset == 0)
    return fmt::format("zero {} offset", u.ctl_offset == 0 ? "control" : "counter");
  if (u.num_regs == 0 || u.bit_width == 0 || u.bit_width > 64)
    return fmt::format("{} counters of {} bits", u.num_regs, u.bit_width);
  return "";
}

// The unit records after the global one.
void decode_units(const QwordReader& read, std::uint64_t window_bytes, const std::string& where, DecodedTable& t) {
  std::map<std::pair<unsigned, unsigned>, unsigned> seen;  // (type, id) -> index
  for (unsigned i = 0; i < t.max_units; ++i) {
    std::uint64_t at = static_cast<std::uint64_t>(i + 1) * t.stride_bytes;
    DecodedUnit u;
    u.index = i;
    if (at + kRecordBytes > window_bytes || !read_record(read, at, u.raw)) {
      t.warnings.push_back(fmt::format("{}: table runs past the end of its {:#x}-byte window: units {}..{} not read",
                                       where, window_bytes, i, t.max_units - 1));
      t.skipped += t.max_units - i;
      break;
    }
    std::string unit_where = fmt::format("{} unit {} @+{:#x}", where, i, at);
    if (invalid_record(u.raw)) {
      count_invalid(t, u, unit_where);
      continue;
    }
    decode_unit(u);
    std::string what = fmt::format("{} (type {} id {})", unit_where, u.box_type, u.box_id);
    std::string why = unusable(u);
    auto [it, fresh] = why.empty() ? seen.emplace(std::pair<unsigned, unsigned>{u.box_type, u.box_id}, i)
                                   : std::pair{seen.end(), true};
    if (!fresh) why = fmt::format("duplicate of unit {}", it->second);
    if (!why.empty()) {
      t.warnings.push_back(fmt::format("{}: skipped: {}", what, why));
      ++t.skipped;
      continue;
    }
    t.units.push_back(u);
  }
}

}  // namespace

DecodedTable decode_table(const QwordReader& read, std::uint64_t window_bytes, const std::string& where) {
  DecodedTable t;
  if (!read_record(read, 0, t.global)) {
    t.warnings.push_back(
        fmt::format("{}: the global record does not fit in the {:#x}-byte window", where, window_bytes));
    return t;
  }
  if (invalid_record(t.global)) {
    bool gone = t.global[0] == ~0ull && t.global[1] == ~0ull;
    t.warnings.push_back(fmt::format("{}: invalid global discovery record {:#x} {:#x} {:#x}{}", where, t.global[0],
                                     t.global[1], t.global[2], gone ? " (reads all ones: device gone?)" : ""));
    return t;
  }
  decode_global(t);
  if (t.max_units == 0) return t;
  if (t.stride_bytes < kRecordBytes) {
    // With stride 0 every "unit" would be the global record again; below 24 bytes they overlap.
    t.warnings.push_back(fmt::format("{}: stride {} bytes cannot hold {} unit records of {} bytes: no units read",
                                     where, t.stride_bytes, t.max_units, kRecordBytes));
    t.skipped = t.max_units;
    return t;
  }
  decode_units(read, window_bytes, where, t);
  return t;
}

}  // namespace pmukit::discovery::intel
