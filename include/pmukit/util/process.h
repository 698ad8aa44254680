// pmukit -- who a process is, beyond its pid: what the machine lock and the journal record about
// the process that holds or wrote them, so that a later process can tell whether it still runs.
//
// A pid alone says little: inside a container every pmukit tool may be pid 1 of its own PID
// namespace, and a pid is reused after its process ends. So a process is its pid, the inode of
// its PID namespace (/proc/PID/ns/pid), its start time (/proc/PID/stat field 22, clock ticks
// since boot) and the boot it ran in (/proc/sys/kernel/random/boot_id). These describe this
// host's processes, whatever machine root a tool works on, so they are read from the host's /proc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pmukit {

struct ProcessIdentity {
  long pid = 0;
  std::uint64_t pid_ns = 0;       // inode of its PID namespace; 0 when unknown
  std::uint64_t start_ticks = 0;  // start time, clock ticks after boot; 0 when unknown
  std::string boot_id;            // "" when unknown
  std::string program;            // "pmu-raw", "pmu-exporter" ("" when unknown)

  // This process.
  static ProcessIdentity self();
  // Process `pid` as this process's PID namespace sees it; nullopt when there is none.
  // pid_ns is 0 when its namespace link is not readable (another user's process).
  static std::optional<ProcessIdentity> of(long pid);
};

// Whether `pid` in this PID namespace is a running process with `start_ticks` (0: any start).
bool process_runs(long pid, std::uint64_t start_ticks);

// The start time from a /proc/PID/stat line: field 22, counted after the ')' that ends the
// command name (which may hold spaces and parentheses); nullopt when the line is malformed.
std::optional<std::uint64_t> parse_stat_start_time(std::string_view stat);

// A program name as pmukit records it: 1 to 32 of [A-Za-z0-9._+-]; anything else is "".
std::string sanitize_program_name(std::string_view name);

}  // namespace pmukit
