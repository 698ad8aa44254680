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

// An Error a failed system call caused: the message names the object and says why in words, and
// code() keeps errno as a number, so callers decide on EPERM or ENOENT without reading the text.
class SystemError : public Error {
 public:
  SystemError(const std::string& what, int err) : Error(what), err_(err) {}
  int code() const { return err_; }

 private:
  int err_;
};

// strerror(err) as a std::string ("Operation not permitted").
std::string errno_text(int err);

// Throws SystemError("<what>: <strerror(err)>", err).
[[noreturn]] void throw_errno(std::string_view what, int err);

}  // namespace pmukit
