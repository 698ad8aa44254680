// pmukit -- facts about the CPUs: model (/proc/cpuinfo) and topology (sysfs cpu/ and node/).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pmukit {
class Machine;
}

namespace pmukit::discovery {

struct CpuIdentity {
  std::string vendor;  // "GenuineIntel"; "" on Arm
  unsigned family = 0;
  unsigned model = 0;
  unsigned stepping = 0;
  std::string model_name;
  unsigned arm_implementer = 0;
  unsigned arm_part = 0;
  bool has_family = false, has_model = false;  // the lines were there and held numbers
  bool hypervisor = false;                     // x86 "flags" has "hypervisor" (CPUID.1:ECX[31]): a guest
  // Vendor, family and model all read: only then is the CPU matched against the database (a
  // missing line is unknown, not family 0 or model 0).
  bool x86_identity() const { return !vendor.empty() && has_family && has_model; }
};

// nullopt when /proc/cpuinfo is missing or unreadable.
std::optional<CpuIdentity> read_cpu_identity(const Machine& machine);

struct CpuPlace {
  int package = -1;
  int die = 0;
};

struct Topology {
  std::map<int, CpuPlace> cpus;               // online CPUs
  std::map<int, std::vector<int>> node_cpus;  // NUMA node -> its CPUs (memory-only nodes: empty)

  // Socket of a NUMA node: the package of its first CPU; nullopt if unknown or CPU-less.
  std::optional<int> socket_of_node(int node) const;
  // The first CPU of a package (and die, when die >= 0); -1 if none.
  int first_cpu(int package, int die = -1) const;
  std::vector<int> packages() const;
};

Topology read_topology(const Machine& machine);

}  // namespace pmukit::discovery
