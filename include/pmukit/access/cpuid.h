// pmukit -- CPUID as one CPU answers it, through /dev/cpu/N/cpuid (Linux x86 cpuid driver).
//
// Live, the device is read with pread of 16 bytes (EAX, EBX, ECX, EDX) at offset
// (subleaf << 32 | leaf), and the driver runs CPUID on CPU N. A snapshot holds the same path as a
// regular text file, one leaf per line: "LEAF SUBLEAF EAX EBX ECX EDX" in hex (docs/snapshot-format.md),
// since a regular file cannot hold 16-byte records at consecutive byte offsets. The device type,
// not the caller, decides which form applies, as for MSRs (access/msr.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace pmukit {

class Machine;

struct CpuidRegs {
  std::uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

struct CpuidAnswer {
  std::optional<CpuidRegs> regs;  // nullopt: not read, `why` says why
  std::string why;                // "/dev/cpu/0/cpuid: open: No such file or directory (modprobe cpuid)"
};

// CPUID `leaf`/`subleaf` on CPU `cpu`. A leaf above the CPU's maximum reads as absent: the caller
// checks the maximum leaf (0x80000000 EAX) first, as the kernel does.
CpuidAnswer read_cpuid(const Machine& machine, int cpu, std::uint32_t leaf, std::uint32_t subleaf = 0);

// While set, told of every leaf read (cpu, leaf, subleaf, answer): how pmu-discover --capture
// writes a snapshot's dev/cpu/N/cpuid files, which a capture cannot copy from the device.
using CpuidObserver = std::function<void(int cpu, std::uint32_t leaf, std::uint32_t subleaf, const CpuidRegs& regs)>;
void set_cpuid_observer(CpuidObserver observer);

// The snapshot file's line for one leaf (what pmu-discover --capture and the spec builder write).
std::string cpuid_line(std::uint32_t leaf, std::uint32_t subleaf, const CpuidRegs& regs);

}  // namespace pmukit
