// pmukit -- what to tell the user when the kernel refuses hardware access: missing privilege,
// kernel lockdown, or STRICT_DEVMEM, each with what to do about it.
#pragma once

#include <string>

namespace pmukit {

class Machine;

enum class HardwareResource { DevMem, BarResource, Msr, ConfigSpace };

// A parenthesised hint for errno `err` from opening, mapping or writing `what`, or "" when there is
// nothing more useful to say than strerror. Reads the lockdown state from lockdown.path when it
// can (it is under securityfs, which may not be mounted).
std::string access_hint(const Machine& machine, HardwareResource what, int err);

// The lockdown mode ("none", "integrity", "confidentiality"), or "" when unknown.
std::string lockdown_mode(const Machine& machine);

}  // namespace pmukit
