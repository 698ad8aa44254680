// pmukit -- errno helpers.
#include "pmukit/util/error.h"

#include <cstring>

#include <fmt/format.h>

namespace pmukit {

std::string errno_text(int err) {
  char buf[256];
  // GNU strerror_r returns the message pointer, which may or may not be buf.
  return std::string(strerror_r(err, buf, sizeof buf));
}

void throw_errno(std::string_view what, int err) {
  throw SystemError(fmt::format("{}: {}", what, errno_text(err)), err);
}

}  // namespace pmukit
