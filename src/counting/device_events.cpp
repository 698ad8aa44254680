// pmukit -- events labelled with a PCI device, bound to and checked against the device's PCIe PMU
// and filter (the mapping pmu-rcmap prints).
#include "pmukit/counting/device_events.h"

#include <algorithm>

#include <fmt/format.h>

#include "pmukit/access/bdf.h"
#include "pmukit/families/coresight/nvidia_rcmap.h"
#include "pmukit/families/intel/iio_devices.h"
#include "pmukit/pci/device.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"

namespace pmukit::counting {

namespace {

const pci::Device& find_device(const std::vector<pci::Device>& devices, const std::string& device) {
  auto bdf = Bdf::parse(device);
  if (!bdf) throw Error(fmt::format("device '{}': not a PCI address (DDDD:BB:DD.F)", device));
  for (const auto& d : devices)
    if (d.bdf == *bdf) return d;
  throw Error(fmt::format("device {}: no such PCI device on this machine", device));
}

std::vector<DeviceFilter> intel_filters(Machine& machine, const discovery::DiscoveryResult& found,
                                        const platform::IioMapScheme& scheme, const std::string& device) {
  const auto& dev = find_device(found.devices, device);
  auto topo = discovery::read_iio_topology(machine, found.devices, found.topology, scheme);
  auto map = discovery::map_iio_device(dev, found.devices, topo, &found.inventory);
  if (map.filters.empty())
    throw Error(fmt::format("device {}: no IIO PMU part counts it ({})", device,
                            map.error.empty() ? "no part selects it" : map.error));
  std::vector<DeviceFilter> out;
  for (const auto& f : map.filters) out.push_back({f.pmu, f.terms});
  return out;
}

std::vector<DeviceFilter> nvidia_filters(Machine& machine, const std::vector<pci::Device>& devices,
                                         const std::string& device) {
  const auto& dev = find_device(devices, device);
  std::vector<std::string> warnings;
  auto maps = discovery::map_root_ports(machine, devices, warnings);
  auto r = discovery::map_device(dev, maps);
  if (!r.map || r.filters.empty())
    throw Error(fmt::format("device {}: no PCIe PMU counts it on this machine ({})", device,
                            r.error.empty() ? "no RC mapping" : r.error));
  std::vector<DeviceFilter> out;
  for (const auto& f : r.filters) out.push_back({f.pmu, f.terms});
  return out;
}

std::optional<std::uint64_t> number(const std::string& text) {
  try {
    std::size_t used = 0;
    auto v = std::stoull(text, &used, 0);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

const syntax::Term* find_term(const syntax::EventSpec& e, const std::string& key) {
  for (const auto& t : e.terms)
    if (t.key == key) return &t;
  return nullptr;
}

bool same_value(const syntax::Term& a, const syntax::Term& b) {
  if (a.value.has_value() != b.value.has_value()) return false;
  if (!a.value) return true;
  auto x = number(*a.value), y = number(*b.value);
  return x && y ? *x == *y : *a.value == *b.value;
}

// The terms of a filter that select the device (fc_mask selects the transaction type, not the device).
std::vector<syntax::Term> selecting(const DeviceFilter& f) {
  std::vector<syntax::Term> out;
  for (auto& t : syntax::parse_terms(f.terms))
    if (t.key != "fc_mask") out.push_back(std::move(t));
  return out;
}

bool counts_through(const syntax::EventSpec& e, const DeviceFilter& f) {
  if (e.pmu != f.pmu) return false;
  for (const auto& t : selecting(f)) {
    const auto* mine = find_term(e, t.key);
    if (!mine || !same_value(*mine, t)) return false;
  }
  return true;
}

std::string bind(const syntax::EventSpec& e, const DeviceFilter& f) {
  std::string terms;
  for (const auto& t : e.terms) terms += (terms.empty() ? "" : ",") + t.key + (t.value ? "=" + *t.value : "");
  for (const auto& t : syntax::parse_terms(f.terms))
    if (!find_term(e, t.key)) terms += (terms.empty() ? "" : ",") + t.key + (t.value ? "=" + *t.value : "");
  if (!e.name.empty()) terms += (terms.empty() ? "" : ",") + std::string("name=") + e.name;
  return fmt::format("{}/{}/{}{}", f.pmu, terms, e.modifiers.empty() ? "" : ":", e.modifiers);
}

std::string filters_text(const std::vector<DeviceFilter>& filters) {
  std::string s;
  for (const auto& f : filters) s += fmt::format("{}{} {}", s.empty() ? "" : " or ", f.pmu, f.terms);
  return s;
}

}  // namespace

std::vector<DeviceFilter> device_filters(Machine& machine, const discovery::DiscoveryResult& found,
                                         const std::string& device) {
  if (const auto* scheme = discovery::iio_scheme_for(found.cpu)) return intel_filters(machine, found, *scheme, device);
  return nvidia_filters(machine, found.devices, device);
}

std::string check_device_event(const std::string& event, const std::string& device,
                               const std::vector<DeviceFilter>& filters, std::string& bound) {
  auto specs = syntax::parse_event_list(event);
  if (specs.size() != 1) return fmt::format("'{}': expected one event", event);
  const auto& e = specs.front();
  for (const auto& f : filters)
    if (counts_through(e, f)) return bound = event, "";
  // A PMU type ("uncore_iio") and none of the filter's terms: the device's PMU and filter are added.
  for (const auto& f : filters) {
    auto sel = selecting(f);
    bool bare = f.pmu.rfind(e.pmu + "_", 0) == 0 &&
                std::none_of(sel.begin(), sel.end(), [&](const auto& t) { return find_term(e, t.key); });
    if (bare && !sel.empty() && sel.front().value) return bound = bind(e, f), "";
  }
  return fmt::format("device {} is counted by {} (pmu-rcmap {}); the event {} counts other traffic", device,
                     filters_text(filters), device, event);
}

void bind_device_events(Machine& machine, const discovery::DiscoveryResult& found, std::vector<SeriesEvent>& events) {
  for (auto& e : events) {
    if (e.device.empty()) continue;
    auto filters = device_filters(machine, found, e.device);
    std::string bound;
    auto why = check_device_event(e.event, e.device, filters, bound);
    if (!why.empty()) throw Error(why);
    e.event = bound;
  }
}

}  // namespace pmukit::counting
