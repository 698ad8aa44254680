// pmukit -- ACPI table header decoding and table files.
#include "pmukit/acpi/table.h"

#include <cerrno>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"

namespace pmukit::acpi {

namespace {
std::uint32_t le32(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}
std::string field(std::span<const std::uint8_t> b, std::size_t at, std::size_t len) {
  return std::string(reinterpret_cast<const char*>(b.data() + at), len);
}
}  // namespace

TableHeader parse_header(std::span<const std::uint8_t> bytes, std::string_view source) {
  if (bytes.size() < kHeaderBytes)
    throw Error(
        fmt::format("{}: {} bytes is shorter than the {}-byte ACPI table header", source, bytes.size(), kHeaderBytes));
  TableHeader h;
  h.signature = field(bytes, 0, 4);
  h.length = le32(bytes, 4);
  h.revision = bytes[8];
  h.checksum = bytes[9];
  h.oem_id = field(bytes, 10, 6);
  h.oem_table_id = field(bytes, 16, 8);
  h.oem_revision = le32(bytes, 24);
  h.creator_id = field(bytes, 28, 4);
  h.creator_revision = le32(bytes, 32);
  return h;
}

std::uint8_t byte_sum(std::span<const std::uint8_t> bytes) {
  unsigned sum = 0;
  for (auto b : bytes) sum += b;
  return static_cast<std::uint8_t>(sum);
}

std::string printable(std::string_view f) {
  std::string out;
  for (char c : f) {
    if (c == '\0') continue;
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

std::optional<std::vector<std::uint8_t>> read_table(const Machine& machine, std::string_view signature) {
  auto path = machine.param("acpi.path") / std::string(signature);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    throw Error(fmt::format("{}: {}{}", path.string(), errno_text(err),
                            err == EACCES ? " (ACPI tables are readable by root only)" : ""));
  }
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace pmukit::acpi
