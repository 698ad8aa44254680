// pmukit -- the one exception type the library throws, and errno helpers.
//
// Every message names the object first (file, BDF, address, offset) and then the reason, so a tool
// can print it as one line: "pmu-discover: error: 0000:6a:03.1 @0x100: extended capability loop".
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace pmukit {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad command line or event specification: tools exit with status 2 for these.
class UsageError : public Error {
 public:
  using Error::Error;
};

// strerror(err) as a std::string ("Operation not permitted").
std::string errno_text(int err);

// Throws Error("<what>: <strerror(err)>").
[[noreturn]] void throw_errno(std::string_view what, int err);

}  // namespace pmukit
