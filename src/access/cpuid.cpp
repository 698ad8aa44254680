// pmukit -- /dev/cpu/N/cpuid: the Linux cpuid device live, a text file in a snapshot.
#include "pmukit/access/cpuid.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"

namespace pmukit {

namespace {

constexpr std::size_t kCpuidFileBytes = 1u << 20;  // a few hundred leaves at most

std::filesystem::path cpuid_path(const Machine& machine, int cpu) {
  return machine.param("msr.path") / std::to_string(cpu) / "cpuid";
}

// One "LEAF SUBLEAF EAX EBX ECX EDX" line per leaf; the first line for (leaf, subleaf) wins.
CpuidAnswer from_text(const std::string& text, const std::string& file, std::uint32_t leaf, std::uint32_t subleaf) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::uint64_t l = 0, s = 0, a = 0, b = 0, c = 0, d = 0;
    if (!(in >> std::hex >> l >> s >> a >> b >> c >> d)) continue;
    if (l == leaf && s == subleaf)
      return {CpuidRegs{static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(c),
                        static_cast<std::uint32_t>(d)},
              ""};
  }
  return {std::nullopt, fmt::format("{}: no line for leaf {:#x} subleaf {}", file, leaf, subleaf)};
}

CpuidAnswer from_device(const Machine& machine, const std::filesystem::path& path, std::uint32_t leaf,
                        std::uint32_t subleaf) {
  auto r = machine.files().open(path, O_RDONLY);
  if (!r.fd) {
    std::string hint = r.err == ENOENT                     ? " (load the cpuid driver: modprobe cpuid)"
                       : r.err == EACCES || r.err == EPERM ? " (the cpuid device is root's)"
                                                           : "";
    return {std::nullopt, fmt::format("{}: open: {}{}", path.string(), errno_text(r.err), hint)};
  }
  std::uint32_t regs[4] = {};
  const off_t at = static_cast<off_t>(static_cast<std::uint64_t>(subleaf) << 32 | leaf);
  ssize_t n = ::pread(r.fd.get(), regs, sizeof regs, at);
  if (n != static_cast<ssize_t>(sizeof regs))
    return {std::nullopt, fmt::format("{}: read leaf {:#x}: {}", path.string(), leaf, errno_text(n < 0 ? errno : EIO))};
  return {CpuidRegs{regs[0], regs[1], regs[2], regs[3]}, ""};
}

CpuidObserver g_observer;

CpuidAnswer read_leaf(const Machine& machine, int cpu, std::uint32_t leaf, std::uint32_t subleaf) {
  const auto path = cpuid_path(machine, cpu);
  auto st = machine.files().stat(path, false);
  if (!st)
    return {std::nullopt, fmt::format("{}: no such file (load the cpuid driver: modprobe cpuid)", path.string())};
  if (S_ISREG(st->st_mode)) {
    auto text = machine.files().read_text(path, kCpuidFileBytes);
    if (!text) return {std::nullopt, fmt::format("{}: cannot be read", path.string())};
    return from_text(*text, path.string(), leaf, subleaf);
  }
  if (!machine.is_live()) return {std::nullopt, fmt::format("{}: not a regular file in a snapshot", path.string())};
  return from_device(machine, path, leaf, subleaf);
}

}  // namespace

void set_cpuid_observer(CpuidObserver observer) {
  g_observer = std::move(observer);
}

CpuidAnswer read_cpuid(const Machine& machine, int cpu, std::uint32_t leaf, std::uint32_t subleaf) {
  CpuidAnswer a = read_leaf(machine, cpu, leaf, subleaf);
  if (a.regs && g_observer) g_observer(cpu, leaf, subleaf, *a.regs);
  return a;
}

std::string cpuid_line(std::uint32_t leaf, std::uint32_t subleaf, const CpuidRegs& regs) {
  return fmt::format("{:#010x} {:#x} {:#010x} {:#010x} {:#010x} {:#010x}\n", leaf, subleaf, regs.eax, regs.ebx,
                     regs.ecx, regs.edx);
}

}  // namespace pmukit
