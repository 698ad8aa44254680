// pmukit -- IIO metrics per device and per stack.
#include "pmukit/counting/iio_breakdown.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/access/machine.h"
#include "pmukit/families/intel/iio_devices.h"
#include "pmukit/pci/device.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::counting {

namespace {

using discovery::IioDeviceMap;
using discovery::IioTopology;

struct MetricArg {
  const metrics::Metric* metric = nullptr;
  std::string extra;  // the user's own TERMS
};

// NAME or NAME/TERMS/, checked to be an IIO metric that can be counted in this scope.
MetricArg parse_arg(const metrics::Catalog& catalog, const std::string& arg, IioScope scope,
                    const std::string& stack_pmu, const std::string& stack_kind) {
  MetricArg a;
  std::string name = arg.substr(0, arg.find('/'));
  if (name.size() < arg.size()) {
    a.extra = arg.substr(name.size() + 1);
    if (a.extra.empty() || a.extra.back() != '/') throw UsageError(fmt::format("-M '{}': expected NAME/TERMS/", arg));
    a.extra.pop_back();
  }
  a.metric = catalog.find(name);
  if (!a.metric) throw UsageError(fmt::format("-M '{}': no such metric (pmu-raw --list-metrics lists them)", name));
  const char* flag = scope == IioScope::Device ? "--per-device" : "--per-stack";
  if (!a.metric->applies_to(stack_pmu))
    throw UsageError(fmt::format("-M '{}' with {}: it counts on {} PMUs, not on the IIO stack PMUs ({})", name, flag,
                                 a.metric->pmu(), stack_pmu));
  if (!a.metric->applies_to(stack_pmu, platform::Database::builtin().pmu_kind(stack_kind)))
    throw UsageError(fmt::format("-M '{}' with {}: its events are those of {} PMUs, and the IIO stack PMUs here are {}",
                                 name, flag, fmt::join(a.metric->spec().pmu_kinds, "/"), stack_kind));
  const auto& required = a.metric->spec().required_terms;
  bool per_part = std::find(required.begin(), required.end(), "ch_mask") != required.end();
  if (scope == IioScope::Device && !per_part)
    throw UsageError(fmt::format("-M '{}' with --per-device: its events have no part filter (ch_mask), they count the "
                                 "whole IIO stack; use --per-stack",
                                 name));
  if (a.extra.find("ch_mask=") != std::string::npos)
    throw UsageError(fmt::format("-M '{}' with {}: ch_mask is set per {} by pmu-raw, not on the command line", arg,
                                 flag, scope == IioScope::Device ? "device" : "stack"));
  return a;
}

// Devices traffic is counted for: those behind a root port, and integrated functions that are a
// part themselves (accelerators); root ports and host-bridge functions are not listed.
bool listed(const pci::Device& d, const IioDeviceMap& m) {
  if (d.is_root_port()) return false;
  if (d.root_port && *d.root_port != d.bdf) return true;
  return m.anchor && *m.anchor == d.bdf && !m.parts.empty();
}

bool countable(const std::vector<std::string>& pmus, const std::string& pmu) {
  return std::find(pmus.begin(), pmus.end(), pmu) != pmus.end();
}

std::string no_pmu(const std::string& pmu) {
  return fmt::format("{} is neither a discovered PMU unit nor a kernel PMU here", pmu);
}

// Why a device's traffic cannot be counted, or "" when it can.
std::string not_counted(const IioDeviceMap& m, const std::vector<std::string>& pmus) {
  if (!m.error.empty()) return m.error;
  if (m.pmu.empty() || m.parts.empty()) return "no IIO part selects it";
  if (!countable(pmus, m.pmu)) return no_pmu(m.pmu);
  return "";
}

std::string parts_text(const IioDeviceMap& m) {
  std::string s;
  for (unsigned p : m.parts) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

std::string join_terms(const std::string& a, const std::string& b) {
  return b.empty() ? a : a + "," + b;
}

void per_device(Machine& machine, const discovery::DiscoveryResult& found, const IioTopology& topo,
                const std::vector<std::string>& pmus, const MetricArg& a, std::vector<syntax::EventSpec>& specs,
                std::vector<MetricInstance>& out) {
  const auto maps = discovery::map_iio_devices(found.devices, topo, &found.inventory);
  // Devices on the same stack and parts: the hardware cannot tell them apart.
  std::map<std::pair<const discovery::IioStack*, std::uint64_t>, unsigned> counted_on;
  std::vector<std::string> reasons(maps.size());
  for (std::size_t i = 0; i < maps.size(); ++i) {
    if (!listed(found.devices[i], maps[i])) continue;
    reasons[i] = not_counted(maps[i], pmus);
    if (reasons[i].empty()) ++counted_on[{maps[i].stack, maps[i].ch_mask}];
  }
  for (std::size_t i = 0; i < found.devices.size(); ++i) {
    const auto& d = found.devices[i];
    const auto& m = maps[i];
    if (!listed(d, m)) continue;
    MetricInstance inst;
    if (reasons[i].empty()) {
      const unsigned sharing = counted_on[{m.stack, m.ch_mask}] - 1;
      std::string ch = fmt::format("ch_mask={:#x}", m.ch_mask);
      inst = bind_metric(*a.metric, m.pmu, join_terms(ch, a.extra), specs);
      inst.socket = m.stack->socket;
      inst.label =
          fmt::format("{} part{} {}{}", m.pmu, m.parts.size() > 1 ? "s" : "", parts_text(m),
                      sharing ? fmt::format(", shared with {} other device{}", sharing, sharing > 1 ? "s" : "") : "");
    } else {
      inst.metric = a.metric;
      inst.reason = reasons[i];
    }
    inst.group = d.bdf.str();
    inst.detail = fmt::format("{}: {}", pci::class_name(machine, d.class_code),
                              pci::vendor_device_name(machine, d.vendor_id, d.device_id));
    out.push_back(std::move(inst));
  }
}

// Every part a stack's layout gives (root ports and integrated functions): its ch_mask bits.
std::uint64_t layout_parts(const IioTopology& t, const discovery::IioStack& s) {
  if (!t.table || !s.table_entry) return 0;
  auto it = t.table->layouts.find(s.table_entry->layout);
  if (it == t.table->layouts.end()) return 0;
  std::uint64_t mask = 0;
  for (const auto& rule : it->second) {
    if (rule.root_ports)
      for (unsigned dev = rule.devs.lo; dev <= rule.devs.hi && dev - rule.devs.lo < 64; ++dev)
        mask |= 1ull << (dev - rule.devs.lo);
    for (const auto& [id, part] : rule.part_by_id) mask |= 1ull << (part & 63);
    for (unsigned p : rule.parts) mask |= 1ull << (p & 63);
  }
  return mask;
}

void per_stack(const IioTopology& topo, const std::vector<std::string>& pmus, const MetricArg& a,
               std::vector<syntax::EventSpec>& specs, std::vector<MetricInstance>& out) {
  const bool per_part = !a.metric->spec().required_terms.empty();
  for (const auto& s : topo.stacks) {
    if (!s.pmu) continue;  // a bus that is part of another stack is counted with it
    const std::string& pmu = s.pmu_name;
    std::uint64_t mask = layout_parts(topo, s);
    for (const auto& other : topo.stacks)
      if (other.parent && &topo.stacks[*other.parent] == &s) mask |= layout_parts(topo, other);
    MetricInstance inst;
    const bool unit = countable(pmus, pmu);
    if (unit && (mask || !per_part)) {
      std::string terms = per_part ? join_terms(fmt::format("ch_mask={:#x}", mask), a.extra) : a.extra;
      inst = bind_metric(*a.metric, pmu, terms, specs);
      inst.label = per_part ? fmt::format("ch_mask={:#x}", mask) : "";
      inst.socket = s.socket;
    } else {
      inst.metric = a.metric;
      inst.reason = unit ? "the stack has no parts" : no_pmu(pmu);
    }
    inst.group = fmt::format("S{} {}", s.socket, pmu);
    inst.pmu = pmu;
    inst.stack = s.name;
    inst.detail = fmt::format("socket {}, stack {}, root bus {:04x}:{:02x}", s.socket, s.name, s.domain, s.root_bus);
    out.push_back(std::move(inst));
  }
}

}  // namespace

std::vector<MetricInstance> add_iio_metric_events(Machine& machine, const discovery::DiscoveryResult& found,
                                                  const metrics::Catalog& catalog, const std::vector<std::string>& args,
                                                  const std::vector<std::string>& pmus, IioScope scope,
                                                  std::vector<syntax::EventSpec>& specs,
                                                  std::vector<std::string>& warnings) {
  const char* flag = scope == IioScope::Device ? "--per-device" : "--per-stack";
  if (args.empty()) throw UsageError(fmt::format("{} goes with -M and an IIO metric (iio_inbound_read_bw...)", flag));
  const auto* scheme = discovery::iio_scheme_for(found.cpu);
  if (!scheme)
    throw UsageError(fmt::format("{}: this machine's CPU has no IIO stack mapping (Intel Xeon Skylake-SP to Granite "
                                 "Rapids have one)",
                                 flag));
  auto topo = discovery::read_iio_topology(machine, found.devices, found.topology, *scheme);
  warnings.insert(warnings.end(), topo.warnings.begin(), topo.warnings.end());
  const std::string stack_pmu = discovery::iio_pmu_name(*scheme, 0);
  std::vector<MetricInstance> out;
  for (const auto& arg : split_metric_list(args)) {
    MetricArg a = parse_arg(catalog, arg, scope, stack_pmu, scheme->pmu_kind);
    if (scope == IioScope::Device)
      per_device(machine, found, topo, pmus, a, specs, out);
    else
      per_stack(topo, pmus, a, specs, out);
  }
  return out;
}

namespace {

// The per-part IIO metrics exported under the neutral name `arg` that count on this machine's IIO stacks.
std::vector<const metrics::Metric*> neutral_iio_metrics(const metrics::Catalog& catalog, const std::string& arg,
                                                        const platform::IioMapScheme& scheme) {
  std::vector<const metrics::Metric*> out;
  if (arg.find('/') != std::string::npos || catalog.find(arg)) return out;
  const std::string stack_pmu = discovery::iio_pmu_name(scheme, 0);
  const auto* kind = platform::Database::builtin().pmu_kind(scheme.pmu_kind);
  for (const auto& m : catalog.metrics()) {
    const auto& required = m.spec().required_terms;
    if (m.spec().export_as == arg && std::find(required.begin(), required.end(), "ch_mask") != required.end() &&
        m.applies_to(stack_pmu, kind))
      out.push_back(&m);
  }
  return out;
}

}  // namespace

std::vector<MetricInstance> add_neutral_iio_metrics(Machine& machine, const discovery::DiscoveryResult& found,
                                                    const metrics::Catalog& catalog, std::vector<std::string>& args,
                                                    const std::vector<std::string>& pmus,
                                                    std::vector<syntax::EventSpec>& specs,
                                                    std::vector<std::string>& warnings) {
  std::vector<MetricInstance> out;
  const auto* scheme = discovery::iio_scheme_for(found.cpu);
  if (!scheme) return out;
  std::optional<IioTopology> topo;
  std::vector<std::string> rest;
  for (const auto& arg : split_metric_list(args)) {
    const auto iio = neutral_iio_metrics(catalog, arg, *scheme);
    if (iio.empty()) {
      rest.push_back(arg);
      continue;
    }
    if (!topo) {
      topo = discovery::read_iio_topology(machine, found.devices, found.topology, *scheme);
      warnings.insert(warnings.end(), topo->warnings.begin(), topo->warnings.end());
    }
    std::vector<MetricInstance> bound;
    for (const auto* m : iio) per_stack(*topo, pmus, MetricArg{m, ""}, specs, bound);
    // No stack counted (no IIO PMU here): the name goes on, to be refused or reported unavailable.
    if (std::none_of(bound.begin(), bound.end(), [](const auto& i) { return i.reason.empty(); })) {
      rest.push_back(arg);
      continue;
    }
    for (auto& i : bound)
      if (i.reason.empty()) out.push_back(std::move(i));
  }
  args = std::move(rest);
  return out;
}

}  // namespace pmukit::counting
