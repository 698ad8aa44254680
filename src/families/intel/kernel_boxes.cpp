// pmukit -- loading the kernel's fixed Intel uncore tables (kernel_boxes.h).
#include "pmukit/families/intel/kernel_boxes.h"

#include <fmt/format.h>

#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"

namespace pmukit::platform {

namespace {

unsigned small(const nlohmann::json& j, const char* key, const std::string& where, std::uint64_t limit) {
  std::uint64_t v = json_number(j.at(key), fmt::format("{} {}", where, key));
  if (v > limit) throw Error(fmt::format("{} {}: {:#x} is above {:#x}", where, key, v, limit));
  return static_cast<unsigned>(v);
}

KernelPciBox pci_box(const nlohmann::json& f, const std::string& where) {
  return {static_cast<std::uint16_t>(small(f, "device", where, 0xffff)), small(f, "dev", where, 31),
          small(f, "fn", where, 7), small(f, "box", where, 255)};
}

}  // namespace

KernelBoxes KernelBoxes::from_json(const nlohmann::json& j, const std::string& where) {
  KernelBoxes k;
  k.source = json_string(j, "source", where);
  const std::string access = json_string(j, "access", where);
  if (access != "msr" && access != "pci") throw Error(fmt::format("{}: access '{}' is not msr or pci", where, access));
  k.pci = access == "pci";
  const std::uint64_t limit = k.pci ? 0xfff : 0xffffffff;
  k.box_ctl = small(j, "box_ctl", where, limit);
  k.ctl = small(j, "ctl", where, limit);
  k.ctr = small(j, "ctr", where, limit);
  k.ctl_step = small(j, "ctl_step", where, 8);
  k.ctr_step = small(j, "ctr_step", where, 8);
  k.counters = small(j, "counters", where, 8);
  k.width = small(j, "width", where, 64);
  if (j.contains("fixed_ctl")) k.fixed_ctl = small(j, "fixed_ctl", where, limit);
  if (j.contains("fixed_ctr")) k.fixed_ctr = small(j, "fixed_ctr", where, limit);
  if (k.pci) {
    for (const auto& f : j.at("functions")) k.functions.push_back(pci_box(f, where + " functions"));
    return k;
  }
  k.box_stride = small(j, "box_stride", where, 0x100);
  k.boxes = small(j, "boxes", where, 64);
  if (j.contains("count")) {
    const auto& c = j["count"];
    k.count = KernelBoxCount{static_cast<std::uint16_t>(small(c, "device", where + " count", 0xffff)),
                             small(c, "offset", where + " count", 0xffc),
                             static_cast<std::uint32_t>(small(c, "mask", where + " count", 0xffffffff))};
  }
  return k;
}

PciSocketMap PciSocketMap::from_json(const nlohmann::json& j, const std::string& where) {
  PciSocketMap m;
  m.device_id = static_cast<std::uint16_t>(small(j, "device", where, 0xffff));
  m.nodeid_offset = small(j, "nodeid", where, 0xffc);
  m.idmap_offset = small(j, "idmap", where, 0xffc);
  m.reverse = j.value("reverse", false);
  m.source = json_string(j, "source", where);
  return m;
}

}  // namespace pmukit::platform
