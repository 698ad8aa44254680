// pmukit -- how much pmukit takes from a machine tree or a machine spec: every count read from
// input is capped, with the real bound it comes from, so that a hostile or corrupt tree ends in
// an error naming the file instead of hours of work or gigabytes of memory.
#pragma once

#include <cstddef>

namespace pmukit::limits {

// CPUs: Linux's largest NR_CPUS (arch/x86/Kconfig NR_CPUS_RANGE_END with MAXSMP: 8192).
inline constexpr std::size_t kCpus = 8192;
// NUMA nodes: Linux MAX_NUMNODES = 1 << NODES_SHIFT, NODES_SHIFT at most 10 (mm/Kconfig).
inline constexpr std::size_t kNumaNodes = 1024;
// PCI functions: 256 buses x 32 devices x 8 functions, one segment's worth in all.
inline constexpr std::size_t kPciDevices = 65536;
// Entries of any other sysfs directory pmukit lists (event_source PMUs, ACPI devices, a PMU's
// events/ and format/).
inline constexpr std::size_t kDirEntries = 65536;
// APMT nodes: far above any machine (a 2-socket Grace has tens); the table is at most
// 36 + 4096 * 56 bytes.
inline constexpr std::size_t kApmtNodes = 4096;
// An ACPI table pmukit reads whole (the APMT): its header's length, at most this.
inline constexpr std::size_t kAcpiTableBytes = 1u << 20;
// Sockets and dies of a machine spec (pmu-sim create --spec).
inline constexpr std::size_t kSockets = 64;
inline constexpr std::size_t kDiesPerSocket = 64;

}  // namespace pmukit::limits
