// pmukit -- a PCI address: domain (segment), bus, device, function.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmukit {

struct Bdf {
  std::uint32_t domain = 0;
  std::uint8_t bus = 0;
  std::uint8_t dev = 0;  // 0..31
  std::uint8_t fn = 0;   // 0..7

  std::uint8_t devfn() const { return static_cast<std::uint8_t>(dev << 3 | fn); }
  // The 16-bit requester ID: (bus << 8) | (dev << 3) | fn.
  std::uint16_t rid() const { return static_cast<std::uint16_t>(bus << 8 | devfn()); }
  // "0000:6a:03.1", the form lspci -D and sysfs use.
  std::string str() const;
  // Accepts "dddd:bb:dd.f" and "bb:dd.f" (domain 0).
  static std::optional<Bdf> parse(std::string_view s);

  auto operator<=>(const Bdf&) const = default;
};

}  // namespace pmukit
