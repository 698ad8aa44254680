// pmukit -- PCI address formatting and parsing.
#include "pmukit/access/bdf.h"

#include <fmt/format.h>

#include "pmukit/util/text.h"

namespace pmukit {

std::string Bdf::str() const {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, dev, fn);
}

std::optional<Bdf> Bdf::parse(std::string_view s) {
  s = trim(s);
  auto parts = split(s, ':');
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  Bdf b;
  std::size_t i = 0;
  if (parts.size() == 3) {
    auto d = parse_hex(parts[0]);
    if (!d || *d > 0xffffffffull) return std::nullopt;
    b.domain = static_cast<std::uint32_t>(*d);
    i = 1;
  }
  auto bus = parse_hex(parts[i]);
  auto devfn = split(parts[i + 1], '.');
  if (!bus || *bus > 0xff || devfn.size() != 2) return std::nullopt;
  auto dev = parse_hex(devfn[0]);
  auto fn = parse_hex(devfn[1]);
  if (!dev || *dev > 31 || !fn || *fn > 7) return std::nullopt;
  b.bus = static_cast<std::uint8_t>(*bus);
  b.dev = static_cast<std::uint8_t>(*dev);
  b.fn = static_cast<std::uint8_t>(*fn);
  return b;
}

}  // namespace pmukit
