// pmukit -- PCI address formatting and parsing.
#include "pmukit/access/bdf.h"

#include <fmt/format.h>

#include "pmukit/util/text.h"

namespace pmukit {

namespace {

// `v` in lowercase hex, zero-padded to `width` digits, at `p`; returns the end.
char* put_hex(char* p, std::uint32_t v, int width) {
  char digits[8];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v);
  for (int i = n; i < width; ++i) *p++ = '0';
  while (n) *p++ = digits[--n];
  return p;
}

}  // namespace

// "{:04x}:{:02x}:{:02x}.{:x}" written by hand, no format string parsed per call: it names every
// device in every view and message (twice per device in the PCI view's JSON).
std::string Bdf::str() const {
  char buf[24];
  char* p = put_hex(buf, domain, 4);
  *p++ = ':';
  p = put_hex(p, bus, 2);
  *p++ = ':';
  p = put_hex(p, dev, 2);
  *p++ = '.';
  p = put_hex(p, fn, 1);
  return std::string(buf, p);
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
