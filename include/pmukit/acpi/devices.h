// pmukit -- what Linux tells userspace about ACPI devices, and nothing more.
//
// /sys/bus/acpi/devices/<HID>:<nn>/ holds hid, uid (only for devices with _UID), path (the
// namespace path), status (_STA) and physical_node, a link to the device Linux bound to it: a CPU
// for ACPI0007 processors, a platform device for most others. The device's parent directories
// are its ACPI ancestors (processor containers, ACPI0010). Linux does NOT export _DSD properties
// or _CRS resources there; a platform device's memory resources appear only in /proc/iomem, under
// the platform device's name, with real addresses for root only (see read_iomem).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmukit {
class Machine;
}

namespace pmukit::acpi {

struct AcpiAncestor {
  std::string name;  // "ACPI0010:01"
  std::string hid;   // present and non-empty: the walk stops at the first ancestor without one
  std::optional<std::string> uid;
};

struct AcpiDevice {
  std::string name;                          // "NVDA2020:00"
  std::optional<std::string> hid;            // contents of hid; nullopt when absent or empty
  std::optional<std::string> uid;            // contents of uid, when the device has a _UID
  std::string path;                          // "\_SB_.C2C0", "" when absent
  std::optional<std::uint32_t> status;       // _STA, when exported
  std::optional<std::string> physical_node;  // last component of the physical_node link: "cpu3", "NVDA2020:00"
  std::vector<AcpiAncestor> ancestors;       // nearest first
  bool present() const { return !status || (*status & 1); }
  // Whether the device's _HID is `want`. An identity is matched only on a present, non-empty value:
  // a device without a hid file (device:NN, the _ADR companions of PCI functions) is unknown, and
  // matches nothing -- not even an empty `want`.
  bool has_hid(std::string_view want) const { return !want.empty() && hid && *hid == want; }
  std::optional<std::uint64_t> uid_number() const;
};

// Every device under acpidev.path, sorted by name. Missing directory: empty list.
std::vector<AcpiDevice> list_devices(const Machine& machine);

// ACPI processor UID -> logical CPU, from ACPI0007 (and legacy LNXCPU) devices bound to a CPU.
struct Processors {
  std::map<std::uint64_t, int> uid_to_cpu;
  std::map<std::uint64_t, std::vector<int>> container_cpus;  // ACPI0010 _UID -> CPUs below it
};
Processors processors(const std::vector<AcpiDevice>& devices);

struct IomemRange {
  std::uint64_t start = 0;
  std::uint64_t end = 0;  // inclusive
  std::string name;
  unsigned depth = 0;  // nesting level (two spaces each in the file)
  // Its length; nullopt for the whole 64-bit space (0-ffffffffffffffff: 2^64 bytes do not fit in
  // 64 bits), which is no device's register block.
  std::optional<std::uint64_t> bytes() const {
    if (end - start == ~0ull) return std::nullopt;
    return end - start + 1;
  }
};

struct Iomem {
  bool readable = false;          // the file exists and could be read
  bool addresses_hidden = false;  // every range reads 0-0: the kernel hides addresses from non-root
  std::vector<IomemRange> ranges;
  // Ranges carrying `name` (a platform device or driver claim), one per distinct range: a driver's
  // request_mem_region nested inside the platform device's own resource of the same name counts
  // once.
  std::vector<IomemRange> named(std::string_view name) const;
};

// Parses iomem.path ("%08llx-%08llx : name", nested by two spaces, as kernel/resource.c r_show()).
Iomem read_iomem(const Machine& machine);
// The same from the file's text (readable is set); lines that are not a range are passed over.
Iomem parse_iomem(std::string_view text);

}  // namespace pmukit::acpi
