// pmukit -- decoding one Intel uncore discovery table from a mapped window.
//
// Pure decoding: the global record, then max_units unit records at base + (i + 1) * stride * 8,
// with Linux's validity rules. Every unit that is skipped is reported with its reason; a table
// that runs past its window yields the units that fit and a warning for the rest.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pmukit/families/intel/intel_regs.h"

namespace pmukit::discovery::intel {

struct DecodedUnit {
  unsigned index = 0;  // position in the table
  std::uint64_t raw[3] = {0, 0, 0};
  unsigned num_regs = 0;
  unsigned ctl_offset = 0;
  unsigned bit_width = 0;
  unsigned ctr_offset = 0;
  unsigned status_offset = 0;
  unsigned access_type = 0;
  std::uint64_t box_ctl = 0;
  std::uint16_t box_type = 0;
  std::uint16_t box_id = 0;
};

struct DecodedTable {
  bool valid = false;  // the global record passed the validity test
  std::uint64_t global[3] = {0, 0, 0};
  unsigned type = 0;
  unsigned stride_bytes = 0;  // stride * 8
  unsigned max_units = 0;
  unsigned access_type = 0;
  std::uint64_t global_ctl = 0;
  unsigned status_offset = 0;
  unsigned num_status = 0;
  std::vector<DecodedUnit> units;     // the valid ones, in table order
  std::vector<std::string> warnings;  // "<where> unit 7 @+0xe0: skipped: ..."
  unsigned skipped = 0;
  unsigned empty = 0;  // all-zero records: padding (the kernel passes them over too), counted, not warned
};

// Reads the qword at a byte offset of the table, nullopt past the end of what is mapped.
using QwordReader = std::function<std::optional<std::uint64_t>(std::uint64_t offset)>;

// `where` prefixes every warning ("0000:6a:03.1 DVSEC @0x100 BAR0").
DecodedTable decode_table(const QwordReader& read, std::uint64_t window_bytes, const std::string& where);

// Linux uncore_discovery_invalid_unit(): zero or all-ones table1/ctl, all-ones table3.
bool invalid_record(const std::uint64_t raw[3]);

// Bytes the table occupies: (1 + max_units) * stride * 8.
std::uint64_t table_bytes(RegValue<regs::intel::GlobalTable1> global_table1);

}  // namespace pmukit::discovery::intel
