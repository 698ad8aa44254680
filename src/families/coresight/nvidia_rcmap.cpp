// pmukit -- NVIDIA PCIe RC mapping (Tegra410 DVSEC 10de:4, Grace domain numbers).
#include "pmukit/families/coresight/nvidia_rcmap.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/pci/capabilities.h"
#include "pmukit/platform/database.h"

namespace pmukit::discovery {

namespace {

const platform::RcMapScheme* scheme_named(std::string_view name) {
  for (const auto& s : platform::Database::builtin().soc(platform::SocSection::RcMaps).rc_maps)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> pmu_names(const platform::RcMapScheme& s, int socket, int rc) {
  std::vector<std::string> out;
  for (const auto& p : s.pmus)
    out.push_back(
        platform::expand_pattern(p.name_pattern, {{"socket", std::to_string(socket)}, {"rc", std::to_string(rc)}}));
  return out;
}

std::optional<RootPortMap> from_dvsec(Machine& machine, const pci::Device& d, const pci::Capability& cap,
                                      const platform::RcMapScheme& s, std::vector<std::string>& warnings) {
  std::string where = fmt::format("{} DVSEC {:04x}:{:04x} @{:#x}", d.bdf.str(), s.dvsec_vendor, s.dvsec_id, cap.offset);
  unsigned last = 0;
  for (const auto& [name, off] : s.bytes) last = std::max(last, off);
  if (cap.dvsec->length <= last) {
    warnings.push_back(fmt::format("{}: length {:#x} does not cover byte +{:#x}: RC mapping not read", where,
                                   cap.dvsec->length, last));
    return std::nullopt;
  }
  auto& cfg = machine.pci().config(d.bdf);
  std::map<std::string, int> v;
  for (const auto& [name, off] : s.bytes) {
    auto b = cfg.read8(cap.offset + off);
    if (!b) {
      warnings.push_back(fmt::format("{}: byte +{:#x} ({}) unreadable: RC mapping not read", where, off, name));
      return std::nullopt;
    }
    v[name] = *b;
  }
  RootPortMap m;
  m.device = d.bdf;
  m.is_root_port = d.is_root_port();
  m.device_id = d.device_id;
  m.scheme = s.name;
  m.source = fmt::format("DVSEC {:04x}:{:04x} @{:#x}", s.dvsec_vendor, s.dvsec_id, cap.offset);
  m.dvsec_offset = cap.offset;
  m.bus = v["bus"];
  m.segment = v["segment"];
  m.rp = v["rp"];
  m.rc = v["rc"];
  m.socket = v["socket"];
  m.pmus = pmu_names(s, m.socket, m.rc);
  // The DVSEC repeats the root port's own segment and bus; disagreement means stale firmware data.
  if (m.segment != static_cast<int>(d.bdf.domain & 0xff) || m.bus != d.bdf.bus)
    warnings.push_back(fmt::format("{}: says segment {:02x} bus {:02x}, but the device is at {:04x}:{:02x}", where,
                                   m.segment, m.bus, d.bdf.domain, d.bdf.bus));
  if (m.rp > 7) warnings.push_back(fmt::format("{}: RP# {} does not fit the 8-bit root-port filter", where, m.rp));
  return m;
}

}  // namespace

std::vector<RootPortMap> map_root_ports(Machine& machine, const std::vector<pci::Device>& devices,
                                        std::vector<std::string>& warnings) {
  std::vector<RootPortMap> out;
  if (devices.empty()) return out;  // before asking for the SoC data, which is parsed on first use
  for (const auto& s : platform::Database::builtin().soc(platform::SocSection::RcMaps).rc_maps) {
    for (const auto& d : devices) {
      if (s.method == "dvsec") {
        if (d.vendor_id != s.dvsec_vendor) continue;
        const auto* cap = d.find_dvsec(s.dvsec_vendor, s.dvsec_id);
        if (!cap) continue;
        if (auto m = from_dvsec(machine, d, *cap, s, warnings)) out.push_back(std::move(*m));
      } else if (s.method == "domain") {
        if (!d.is_root_port() || d.vendor_id != s.vendor ||
            std::find(s.root_port_devices.begin(), s.root_port_devices.end(), d.device_id) == s.root_port_devices.end())
          continue;
        RootPortMap m;
        m.device = d.bdf;
        m.device_id = d.device_id;
        m.scheme = s.name;
        m.socket = static_cast<int>(d.bdf.domain >> s.socket_shift);
        m.rp = static_cast<int>(d.bdf.domain & s.rp_mask);
        m.source = fmt::format("derived from PCI domain {:04x} (Grace guide: 0008 = socket 0 root "
                               "port 8, 0018 = socket "
                               "1 root port 8); not read from hardware",
                               d.bdf.domain);
        if (static_cast<unsigned>(m.rp) > s.max_rp) {
          warnings.push_back(fmt::format("{}: domain {:04x} gives root port {}, beyond Grace's 0-{}: not mapped",
                                         d.bdf.str(), d.bdf.domain, m.rp, s.max_rp));
          continue;
        }
        m.pmus = pmu_names(s, m.socket, -1);
        out.push_back(std::move(m));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const RootPortMap& a, const RootPortMap& b) { return a.device < b.device; });
  return out;
}

DeviceRcMap map_device(const pci::Device& dev, const std::vector<RootPortMap>& maps) {
  DeviceRcMap r;
  r.device = dev.bdf;
  r.kind = dev.port_type     ? pci::port_type_name(*dev.port_type)
           : dev.is_bridge() ? "PCI bridge"
                             : "conventional PCI device";
  r.root_port = dev.root_port;
  // A device carrying its own mapping (a root port) uses it; others use their root port's.
  const RootPortMap* own = nullptr;
  const RootPortMap* above = nullptr;
  for (const auto& m : maps) {
    if (m.device == dev.bdf) own = &m;
    if (dev.root_port && m.device == *dev.root_port) above = &m;
  }
  r.map = own ? own : above;
  if (!r.map) {
    r.error = dev.root_port ? fmt::format("its root port {} has no NVIDIA RC mapping (no DVSEC 10de:0004, not a "
                                          "Grace root port)",
                                          dev.root_port->str())
                            : "no root port above it (an integrated or host-bridge device): no PCIe PMU sees it";
    return r;
  }
  const auto* s = scheme_named(r.map->scheme);
  if (!s) return r;
  std::string rp_text = r.map->device.str();
  for (std::size_t i = 0; i < s->pmus.size() && i < r.map->pmus.size(); ++i) {
    const auto& p = s->pmus[i];
    PmuFilter f;
    f.pmu = r.map->pmus[i];
    if (!own && !p.bdf_terms.empty()) {
      f.terms = platform::expand_pattern(p.bdf_terms, {{"bdf", fmt::format("{:#06x}", dev.bdf.rid())}});
      f.scope = "this function only";
    } else {
      f.terms = fmt::format("{}={:#x}", p.rp_term, 1u << r.map->rp);
      f.scope = own ? fmt::format("every device below root port {}", rp_text)
                    : fmt::format("every device below root port {} (this PMU has no BDF filter)", rp_text);
    }
    if (!p.example_event.empty()) f.example = fmt::format("{}/{},{}/", f.pmu, p.example_event, f.terms);
    r.filters.push_back(std::move(f));
  }
  return r;
}

}  // namespace pmukit::discovery
