// pmukit -- the 36-byte ACPI System Description Table header every table starts with
// (ACPI 6.5 section 5.2.6), and reading tables from the machine's acpi.path.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pmukit {
class Machine;
}

namespace pmukit::acpi {

inline constexpr std::size_t kHeaderBytes = 36;

struct TableHeader {
  std::string signature;     // 4 characters, "APMT"
  std::uint32_t length = 0;  // whole table, header included
  std::uint8_t revision = 0;
  std::uint8_t checksum = 0;  // the byte that makes the table sum to 0 mod 256
  std::string oem_id;         // 6 characters, trailing NULs and spaces kept as read
  std::string oem_table_id;   // 8 characters
  std::uint32_t oem_revision = 0;
  std::string creator_id;  // 4 characters
  std::uint32_t creator_revision = 0;
};

// Decodes the header; throws Error("<source>: ...") when fewer than 36 bytes are given.
TableHeader parse_header(std::span<const std::uint8_t> bytes, std::string_view source);
// Sum of the first `length` bytes mod 256 (0 for a correct table).
std::uint8_t byte_sum(std::span<const std::uint8_t> bytes);
// Printable form of a fixed-width ID field: NULs dropped, other non-printables as '?'.
std::string printable(std::string_view field);

// The raw bytes of table `signature` under acpi.path; nullopt when it does not exist. Throws
// Error naming the file when it exists but cannot be read (the tables are root-only: mode 0400).
std::optional<std::vector<std::uint8_t>> read_table(const Machine& machine, std::string_view signature);

}  // namespace pmukit::acpi
