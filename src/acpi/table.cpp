// pmukit -- ACPI table header decoding and table files.
#include "pmukit/acpi/table.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"

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

namespace {

// Reads at most `limit` bytes from `fd` (a regular file opened O_NONBLOCK), appending to `out`.
bool read_up_to(int fd, std::size_t limit, std::vector<std::uint8_t>& out) {
  std::uint8_t buf[4096];
  while (out.size() < limit) {
    ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  return true;
}

}  // namespace

std::optional<std::vector<std::uint8_t>> read_table(const Machine& machine, std::string_view signature) {
  auto path = machine.param("acpi.path") / std::string(signature);
  // Inside the machine root, never blocking (O_NONBLOCK, then a regular file only), and no more
  // than the header's length (capped) plus a little, for the "bytes after the table" warning.
  auto r = machine.files().open_regular(path);
  if (!r.fd) {
    if (r.err == ENOENT || r.err == ENOTDIR) return std::nullopt;
    throw Error(fmt::format("{}: {}{}", path.string(), errno_text(r.err),
                            r.err == EACCES ? " (ACPI tables are readable by root only)" : ""));
  }
  std::vector<std::uint8_t> bytes;
  if (!read_up_to(r.fd.get(), kHeaderBytes, bytes)) throw_errno(path.string(), errno);
  if (bytes.size() < kHeaderBytes) return bytes;  // parse_header says it is too short
  std::uint32_t length = le32(bytes, 4);
  if (length > limits::kAcpiTableBytes)
    throw Error(fmt::format("{}: header length {:#x} is larger than pmukit reads ({:#x} bytes)", path.string(), length,
                            limits::kAcpiTableBytes));
  constexpr std::size_t kTrailer = 0x10000;
  if (!read_up_to(r.fd.get(), std::max<std::size_t>(length, kHeaderBytes) + kTrailer, bytes))
    throw_errno(path.string(), errno);
  return bytes;
}

}  // namespace pmukit::acpi
