// pmukit tests -- register images.
#include "support/register_image.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/register_window.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/unit_layout.h"
#include "pmukit/util/file.h"

namespace pmukit::test {

namespace {
std::vector<std::uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

// A snapshot's MSR file holds each register at MSR * 8 (access/msr.h): AMD's 0xc001xxxx MSRs put
// data 25 GiB into a sparse file. Only its data extents are read (SEEK_DATA / SEEK_HOLE), and each
// non-zero register in them is keyed by its offset: a hole reads as zero, so a register written and
// restored to zero where there was a hole (the file system allocates an extent) is unchanged.
void add_msr_file(RegisterImage& image, const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  for (off_t at = ::lseek(fd, 0, SEEK_DATA); at >= 0;) {
    const off_t end = ::lseek(fd, at, SEEK_HOLE);
    if (end <= at) break;
    std::vector<std::uint8_t> b(static_cast<std::size_t>(end - at));
    if (::pread(fd, b.data(), b.size(), at) != static_cast<ssize_t>(b.size())) break;
    for (std::size_t i = 0; i + 8 <= b.size(); i += 8)
      if (std::any_of(b.begin() + static_cast<std::ptrdiff_t>(i), b.begin() + static_cast<std::ptrdiff_t>(i + 8),
                      [](std::uint8_t x) { return x != 0; }))
        image[fmt::format("{}@{:#x}", file.string(), at + static_cast<off_t>(i))] = {
            b.begin() + static_cast<std::ptrdiff_t>(i), b.begin() + static_cast<std::ptrdiff_t>(i + 8)};
    at = ::lseek(fd, end, SEEK_DATA);
  }
  ::close(fd);
}
}  // namespace

RegisterImage register_image(Machine& machine, const discovery::Inventory& inventory) {
  RegisterImage image;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(machine.param("msr.path"), ec))
    add_msr_file(image, e.path() / "msr");
  for (const auto& e : std::filesystem::directory_iterator(machine.param("sysfs.path") / "devices", ec))
    if (auto text = try_read_file(e.path() / "config")) image[(e.path() / "config").string()] = bytes_of(*text);
  for (const auto& unit : inventory.units) {
    for (const auto& [base, size] : pmu::make_layout(unit, platform::Database::builtin()).blocks) {
      auto w = machine.memory().map(base, size, false);
      std::vector<std::uint8_t> b(size);
      for (std::uint64_t off = 0; off + 4 <= size; off += 4) {
        std::uint32_t v = w->read32(off);
        for (int k = 0; k < 4; ++k) b[off + static_cast<std::uint64_t>(k)] = static_cast<std::uint8_t>(v >> (8 * k));
      }
      image[fmt::format("mmio {:#x}+{:#x}", base, size)] = std::move(b);
    }
  }
  return image;
}

std::string image_difference(const RegisterImage& before, const RegisterImage& after) {
  for (const auto& [key, b] : before) {
    auto it = after.find(key);
    if (it == after.end()) return key + ": missing after the run";
    const auto& a = it->second;
    if (a.size() != b.size()) return fmt::format("{}: {} bytes before, {} after", key, b.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return fmt::format("{}: byte {:#x} was {:#04x}, is {:#04x}", key, i, b[i], a[i]);
  }
  for (const auto& [key, a] : after)
    if (!before.count(key)) return key + ": new after the run";
  return "";
}

}  // namespace pmukit::test
