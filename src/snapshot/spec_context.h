// pmukit -- internal: what the machine-spec section writers share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmukit/access/bdf.h"
#include "pmukit/snapshot/builder.h"

namespace pmukit::snapshot::spec {

using json = nlohmann::json;

struct Context {
  SnapshotBuilder& builder;
  std::string machine;                               // spec name, for messages
  std::map<Bdf, int> device_node;                    // NUMA node of each PCI device written
  std::map<int, int> socket_first_cpu;               // socket -> its first CPU
  std::map<std::pair<int, int>, int> die_first_cpu;  // (socket, die) -> first CPU
  std::map<int, int> cpu_package;                    // every CPU -> its socket
  // /proc/iomem, rewritten whenever a writer adds a range (machine_spec_arm.cpp).
  struct IomemEntry {
    std::uint64_t start, end;
    std::string name;
    unsigned depth;
  };
  std::vector<IomemEntry> iomem;
  bool iomem_hidden = false;                  // print 0-0 for every range, as Linux does for non-root
  std::map<std::string, int> acpi_instances;  // HID -> ACPI devices of that HID written so far
  bool kernel_iio_files = false;              // intel_iio: write Linux uncore_iio_<n>/die<x> files
};

// JSON number or "0x.." string; throws Error naming `where`.
std::uint64_t num(const json& j, const std::string& where);
std::uint64_t num_or(const json& obj, const char* key, std::uint64_t fallback, const std::string& where);
Bdf bdf(const json& j, const std::string& where);
// "0-7,9" or [0, 1] -> ids
std::vector<unsigned> id_list(const json& j, const std::string& where);

// Section writers.
void write_cpus(const json& spec, Context& ctx);
void write_pci_devices(const json& section, Context& ctx);
void write_intel_tables(const json& section, Context& ctx);
void write_msrs(const json& section, Context& ctx);
// Intel IIO stacks: mapping registers, root ports, endpoints, accelerators (machine_spec_iio.cpp).
void write_intel_iio(const json& section, Context& ctx);
// Arm and PCIe-vendor sections (machine_spec_arm.cpp).
void write_iomem_section(const json& section, Context& ctx);
void write_acpi_processors(const json& section, Context& ctx);
void write_pcie_root_ports(const json& section, Context& ctx);
void write_apmt(const json& section, Context& ctx);
void write_acpi_devices(const json& section, Context& ctx);

// One capability of a "caps" list ({"at", "pcie" | "dvsec" | "vsec" | "ext" | "id"}).
void add_cap(ConfigImage& c, const json& cap, const std::string& where);

// Adds a plain PCI function (used for devices that PCI-access PMON units live in).
void add_simple_device(Context& ctx, const Bdf& bdf, std::uint16_t vendor, std::uint16_t device, int numa_node);

}  // namespace pmukit::snapshot::spec
