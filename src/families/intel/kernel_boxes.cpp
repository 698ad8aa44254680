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

std::uint32_t dword(const nlohmann::json& j, const char* key, const std::string& where) {
  return static_cast<std::uint32_t>(small(j, key, where, 0xffffffff));
}

// The count's registers: one ("offset", "mask") or a list of them ("registers").
KernelBoxCount box_count(const nlohmann::json& c, const std::string& where) {
  KernelBoxCount k{static_cast<std::uint16_t>(small(c, "device", where, 0xffff)), {}};
  if (c.contains("registers"))
    for (const auto& r : c["registers"])
      k.registers.push_back({small(r, "offset", where, 0xffc), dword(r, "mask", where)});
  else
    k.registers.push_back({small(c, "offset", where, 0xffc), dword(c, "mask", where)});
  if (k.registers.empty()) throw Error(where + ": no register to count the boxes from");
  return k;
}

void msr_boxes(const nlohmann::json& j, const std::string& where, KernelBoxes& k) {
  k.boxes = small(j, "boxes", where, 64);
  if (j.contains("box_offsets")) {
    for (const auto& o : j["box_offsets"]) k.box_offsets.push_back(json_number(o, where + " box_offsets"));
    for (auto o : k.box_offsets)
      if (o > 0x10000) throw Error(fmt::format("{} box_offsets: {:#x} is above 0x10000", where, o));
    if (k.box_offsets.size() < k.boxes)
      throw Error(fmt::format("{}: {} boxes but {} box_offsets", where, k.boxes, k.box_offsets.size()));
  } else {
    k.box_stride = small(j, "box_stride", where, 0x100);
  }
  if (j.contains("count")) k.count = box_count(j["count"], where + " count");
}

// An MMIO box's controls and counters are offsets from its box control (the kernel's io_addr +
// config_base); kept here as box 0's addresses in the window, as the other accesses keep them.
void mmio_boxes(const nlohmann::json& j, const std::string& where, KernelBoxes& k) {
  k.boxes = small(j, "boxes", where, 64);
  k.ctl += k.box_ctl;
  k.ctr += k.box_ctl;
  if (k.fixed_ctl) *k.fixed_ctl += k.box_ctl;
  if (k.fixed_ctr) *k.fixed_ctr += k.box_ctl;
  const auto& m = j.at("mmio");
  const std::string w = where + " mmio";
  KernelMmio x;
  x.device_id = static_cast<std::uint16_t>(small(m, "device", w, 0xffff));
  x.base_offset = small(m, "base", w, 0xffc);
  x.base_mask = dword(m, "base_mask", w);
  x.base_shift = small(m, "base_shift", w, 32);
  x.mem_offset = small(m, "mem", w, 0xffc);
  x.mem_mask = dword(m, "mem_mask", w);
  x.mem_shift = small(m, "mem_shift", w, 32);
  x.mem_stride = small(m, "mem_stride", w, 0x100);
  x.channels = small(m, "channels", w, 16);
  x.channel_stride = small(m, "channel_stride", w, 0x100000);
  x.map_size = small(m, "map_size", w, 0x100000);
  if (x.channels == 0) throw Error(w + ": channels is 0");
  k.mmio = x;
}

}  // namespace

KernelBoxes KernelBoxes::from_json(const nlohmann::json& j, const std::string& where) {
  KernelBoxes k;
  k.source = json_string(j, "source", where);
  const std::string access = json_string(j, "access", where);
  if (access != "msr" && access != "pci" && access != "mmio")
    throw Error(fmt::format("{}: access '{}' is not msr, pci or mmio", where, access));
  k.access = access == "pci" ? KernelAccess::Pci : access == "mmio" ? KernelAccess::Mmio : KernelAccess::Msr;
  const std::uint64_t limit = k.access == KernelAccess::Pci ? 0xfff : 0xffffffff;
  k.box_ctl = small(j, "box_ctl", where, limit);
  k.ctl = small(j, "ctl", where, limit);
  k.ctr = small(j, "ctr", where, limit);
  k.ctl_step = small(j, "ctl_step", where, 8);
  k.ctr_step = small(j, "ctr_step", where, 8);
  k.counters = small(j, "counters", where, 8);
  k.width = small(j, "width", where, 64);
  if (j.contains("fixed_ctl")) k.fixed_ctl = small(j, "fixed_ctl", where, limit);
  if (j.contains("fixed_ctr")) k.fixed_ctr = small(j, "fixed_ctr", where, limit);
  switch (k.access) {
  case KernelAccess::Pci:
    for (const auto& f : j.at("functions")) k.functions.push_back(pci_box(f, where + " functions"));
    break;
  case KernelAccess::Mmio:
    mmio_boxes(j, where, k);
    break;
  case KernelAccess::Msr:
    msr_boxes(j, where, k);
    break;
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
