// pmukit -- internal: what the machine-spec section writers share.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmukit/access/bdf.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"

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
  bool iomem_dirty = false;                   // written once, at the end (rewriting per range is quadratic)
  bool iomem_hidden = false;                  // print 0-0 for every range, as Linux does for non-root
  std::size_t apmt_nodes = 0;                 // nodes written so far, repeats included
  std::map<std::string, int> acpi_instances;  // HID -> ACPI devices of that HID written so far
  bool kernel_iio_files = false;              // intel_iio: write Linux uncore_iio_<n>/die<x> files
};

// A mistake in a machine spec; its message starts with where the value is in the spec
// ("pcie_root_ports[2].id: expected a hex string \"vvvv:dddd\", got the number 5").
class SpecError : public Error {
 public:
  using Error::Error;
};

// Paths for messages: key_path("pci_devices[3]", "bars") = "pci_devices[3].bars".
std::string key_path(const std::string& where, std::string_view key);
std::string index_path(const std::string& where, std::size_t i);
// "the number 5", "the string \"x\"", "an object", ... for "expected X, got Y".
std::string kind_of(const json& j);
[[noreturn]] void expected(const std::string& where, std::string_view what, const json& got);

// Members of the object at `where`: optional (nullptr when absent) and required.
const json* opt(const json& obj, const char* key, const std::string& where);
const json& need(const json& obj, const char* key, const std::string& where);
// A JSON whole number or "0x.."/decimal string; num_in also checks it is at most `max`.
std::uint64_t num(const json& j, const std::string& where);
std::uint64_t num_in(const json& j, std::uint64_t max, const std::string& where);
std::uint64_t num_or(const json& obj, const char* key, std::uint64_t fallback, const std::string& where);
std::uint64_t num_or_in(const json& obj, const char* key, std::uint64_t fallback, std::uint64_t max,
                        const std::string& where);
// A signed JSON integer from lo to hi (NUMA nodes: -1 for none).
int int_or(const json& obj, const char* key, int fallback, int lo, int hi, const std::string& where);
std::string str(const json& obj, const char* key, const std::string& where);
std::string str_or(const json& obj, const char* key, const std::string& fallback, const std::string& where);
bool flag_or(const json& obj, const char* key, bool fallback, const std::string& where);
const json& list(const json& obj, const char* key, const std::string& where);
const json& list_or_empty(const json& obj, const char* key, const std::string& where);
const json& item(const json& array, std::size_t i, const std::string& where);
// A string used as one file name in the tree: letters, digits, _ - . : only ("..", "/" refused).
std::string name(const json& j, const std::string& where);
Bdf bdf(const json& j, const std::string& where);
// "vvvv:dddd" -> vendor, device.
std::pair<std::uint16_t, std::uint16_t> pci_id(const json& j, const std::string& where);
// "0-7,9" or [0, 1] -> ids, at most max_count of them.
std::vector<unsigned> id_list(const json& j, std::size_t max_count, const std::string& where);

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

// cmn: Arm CMN meshes, their ACPI or devicetree description and the configuration region
// (machine_spec_cmn.cpp).
void write_cmn(const json& section, Context& ctx);

// Shared by the Arm writers (machine_spec_arm.cpp).
inline constexpr std::string_view kAcpiRoot = "/sys/devices/LNXSYSTM:00/LNXSYBUS:00";
// A /proc/iomem range (nested claims one level deeper); the file is rewritten in address order.
void add_iomem(Context& ctx, std::uint64_t start, std::uint64_t size, const std::string& name, unsigned depth = 0);
// A relative symlink, as sysfs makes them.
void link(Context& ctx, std::string_view link_abs, std::string_view target_abs);
// An ACPI device directory below `parent_abs` with hid/uid/path/status and its bus link; returns
// the directory ("<parent>/<HID>:<nn>").
std::string add_acpi_device(Context& ctx, const std::string& parent_abs, const std::string& hid,
                            const std::optional<std::string>& uid, const std::string& path, std::uint32_t status);
void ensure_acpi_root(Context& ctx);
// A perf PMU a loaded driver registered below `parent_abs`, with the given sysfs files.
// `name` and the file names must have been checked to be single file names (spec::name).
void add_kernel_pmu(Context& ctx, const std::string& parent_abs, const std::string& name, int type, const json& files,
                    const std::string& where);
int next_pmu_type(Context& ctx);
// Writes /proc/iomem from ctx.iomem when a section changed it (machine_spec_arm.cpp).
void flush_iomem(Context& ctx);

// One capability of a "caps" list ({"at", "pcie" | "dvsec" | "vsec" | "ext" | "id"}).
void add_cap(ConfigImage& c, const json& cap, const std::string& where);

// A PCI function and the functions below it ({bdf, id, class, rev, type, buses, devices, nvme};
// machine_spec_iio.cpp). `sysfs_dir`: the directory of its parent in /sys/devices ("" if none).
void add_function(Context& ctx, const json& d, Bdf at, int node, const std::string& where,
                  const std::string& sysfs_dir = "");

// Adds a plain PCI function (used for devices that PCI-access PMON units live in).
void add_simple_device(Context& ctx, const Bdf& bdf, std::uint16_t vendor, std::uint16_t device, int numa_node);

}  // namespace pmukit::snapshot::spec
