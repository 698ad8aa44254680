// pmukit -- binding events to sysfs PMUs, planning groups, and counting them on CPUs or a task.
#include "pmukit/perf/event_set.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/access/machine.h"
#include "pmukit/perf/cpu_affinity.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/util/error.h"
#include "pmukit/util/suggest.h"

namespace pmukit::perf {

namespace {

struct GenericEvent {
  std::string_view name;
  std::uint64_t config;
  double scale;  // perf prints the clocks in msec
  std::string_view unit;
};

// perf's names for PERF_TYPE_HARDWARE events (tools/perf/util/parse-events.c event_symbols_hw):
// the CPU's core PMU counts them, whatever its name (cpu, cpu_core, armv8_pmuv3_0).
constexpr GenericEvent kHardwareEvents[] = {
    {"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES, 1, ""},
    {"cycles", PERF_COUNT_HW_CPU_CYCLES, 1, ""},
    {"instructions", PERF_COUNT_HW_INSTRUCTIONS, 1, ""},
    {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES, 1, ""},
    {"cache-misses", PERF_COUNT_HW_CACHE_MISSES, 1, ""},
    {"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1, ""},
    {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1, ""},
    {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES, 1, ""},
    {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES, 1, ""},
    {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1, ""},
    {"idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1, ""},
    {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1, ""},
    {"idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1, ""},
    {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, 1, ""},
};

// perf's names for PERF_TYPE_SOFTWARE events (tools/perf/util/parse-events.c).
constexpr GenericEvent kSoftwareEvents[] = {
    {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 1e-6, "msec"},
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK, 1e-6, "msec"},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS, 1, ""},
    {"faults", PERF_COUNT_SW_PAGE_FAULTS, 1, ""},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, 1, ""},
    {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 1, ""},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 1, ""},
    {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 1, ""},
    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, ""},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1, ""},
    {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, 1, ""},
    {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, 1, ""},
    {"dummy", PERF_COUNT_SW_DUMMY, 1, ""},
};

// perf's raw event "rNNNN": the hex number is the config of the CPU's core PMU (PERF_TYPE_RAW;
// tools/perf/util/parse-events.l, "r" followed by hex digits), e.g. the NVIDIA Grace Performance
// Tuning Guide's r80C0 (FP_SCALE_OPS_SPEC).
std::optional<std::uint64_t> raw_core_event(std::string_view name) {
  if (name.size() < 2 || name.size() > 17 || name[0] != 'r') return std::nullopt;
  for (char c : name.substr(1))
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoull(std::string(name.substr(1)), nullptr, 16);
}

// What a bare event name may be: perf's generic events and every PMU's named events.
std::vector<std::string> bare_event_names(const std::vector<SysfsPmu>& pmus) {
  std::vector<std::string> names;
  for (const auto& g : kHardwareEvents) names.emplace_back(g.name);
  for (const auto& g : kSoftwareEvents) names.emplace_back(g.name);
  for (const auto& pmu : pmus)
    for (const auto& [name, alias] : pmu.desc.aliases) names.push_back(name);
  return names;
}

bool is_software(const BoundEvent& e) {
  return e.counter.type == PERF_TYPE_SOFTWARE;
}

// perf's modifier rules: the first of u/k/h excludes every level, then each re-includes its own.
void apply_modifiers(Counter& c, const syntax::EventSpec& spec) {
  bool any_level = false;
  auto include_only = [&](bool& level) {
    if (!any_level) c.exclude_user = c.exclude_kernel = c.exclude_hv = any_level = true;
    level = false;
  };
  for (char m : spec.modifiers) {
    switch (m) {
    case 'u':
      include_only(c.exclude_user);
      break;
    case 'k':
      include_only(c.exclude_kernel);
      break;
    case 'h':
      include_only(c.exclude_hv);
      break;
    case 'I':
      c.exclude_idle = true;
      break;
    case 'D':
      c.pinned = true;
      break;
    case 'e':
      c.exclusive = true;
      break;
    default:
      throw UsageError(fmt::format(
          "event '{}': modifier '{}' is not supported when counting (pmukit takes u k h I D e)", spec.text, m));
    }
  }
}

BoundEvent bind_to(const syntax::EventSpec& spec, std::size_t index, const SysfsPmu& pmu) {
  syntax::EncodedEvent enc = syntax::encode(spec, pmu.desc);
  BoundEvent b;
  b.counter = Counter{enc.name, pmu.name(), pmu.type, enc.config, enc.config1, enc.config2};
  b.counter.scale = enc.scale;
  b.counter.unit = enc.unit;
  b.cpumask = pmu.cpumask;
  b.group = spec.group;
  b.spec = index;
  apply_modifiers(b.counter, spec);
  return b;
}

// Every PMU's aliases, read once per bind_events call (a list of 2,000 bare names must not read
// the event_source tree 2,000 times); PMUs that cannot be read are set aside with their error.
struct AllPmus {
  std::vector<SysfsPmu> pmus;
  std::vector<PmuError> broken;
};

void bind_bare_name(const Machine& machine, const syntax::EventSpec& spec, std::size_t index,
                    std::optional<AllPmus>& all, std::vector<BoundEvent>& out) {
  const std::string& name = spec.terms.at(0).key;
  auto bind_generic = [&](const GenericEvent& g, std::string pmu, std::uint32_t type) {
    BoundEvent b;
    b.counter = Counter{spec.name.empty() ? spec.text : spec.name, std::move(pmu), type, g.config};
    b.counter.scale = g.scale;
    b.counter.unit = std::string(g.unit);
    b.group = spec.group;
    b.spec = index;
    apply_modifiers(b.counter, spec);
    out.push_back(std::move(b));
  };
  for (const auto& sw : kSoftwareEvents)
    if (sw.name == name) return bind_generic(sw, "software", PERF_TYPE_SOFTWARE);
  for (const auto& hw : kHardwareEvents)
    if (hw.name == name) return bind_generic(hw, "cpu", PERF_TYPE_HARDWARE);
  if (auto raw = raw_core_event(name)) return bind_generic({name, *raw, 1, ""}, "cpu", PERF_TYPE_RAW);
  if (name == "duration_time")
    throw UsageError(fmt::format("event '{}': a perf tool event (perf keeps the wall time itself), "
                                 "not a kernel counter",
                                 spec.text));
  if (name.find(':') != std::string::npos)
    throw UsageError(fmt::format("event '{}': tracepoints are not counted by pmukit", spec.text));
  // perf looks a bare name up as an event of every PMU (e.g. "tsc" finds msr/tsc/).
  if (!all) {
    all.emplace();
    all->pmus = list_pmus(machine, &all->broken);
  }
  // A PMU that cannot be read but names this event in its events/ fails this event only.
  for (const auto& b : all->broken)
    if (machine.files().stat(machine.param("events.path") / b.pmu / "events" / name))
      throw Error(fmt::format("event '{}': {}", spec.text, b.error));
  std::size_t before = out.size();
  for (const SysfsPmu& pmu : all->pmus)
    if (syntax::find_alias(pmu.desc, name)) out.push_back(bind_to(spec, index, pmu));
  if (out.size() == before)
    throw UsageError(fmt::format("event '{}': neither a generic hardware or software event nor an event of any PMU in "
                                 "{}{} (write pmu/terms/ for a raw event)",
                                 spec.text, machine.param("events.path").string(),
                                 did_you_mean(name, bare_event_names(all->pmus))));
}

std::vector<int> cpus_within_cpumask(const BoundEvent& e, const std::vector<int>& chosen) {
  if (chosen.empty()) return e.cpumask;
  std::vector<int> both;
  for (int cpu : chosen)
    if (std::find(e.cpumask.begin(), e.cpumask.end(), cpu) != e.cpumask.end()) both.push_back(cpu);
  if (both.empty())
    throw UsageError(
        fmt::format("event '{}': PMU '{}' counts on CPU {} (its cpumask), and none of them was chosen ({})",
                    e.counter.name, e.counter.pmu, fmt::join(e.cpumask, ","), fmt::join(chosen, ",")));
  return both;
}

}  // namespace

bool is_core_pmu_name(std::string_view pmu) {
  return pmu == "cpu" || pmu == "cpu_core" || pmu == "cpu_atom" || pmu.starts_with("armv8_");
}

std::vector<BoundEvent> bind_events(const Machine& machine, std::span<const syntax::EventSpec> specs) {
  std::vector<BoundEvent> out;
  std::optional<AllPmus> all;
  std::map<std::string, std::vector<SysfsPmu>, std::less<>> found;  // each PMU name read once
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const syntax::EventSpec& spec = specs[i];
    if (spec.pmu.empty()) {
      bind_bare_name(machine, spec, i, all, out);
      continue;
    }
    auto it = found.find(spec.pmu);
    if (it == found.end()) it = found.emplace(spec.pmu, find_pmus(machine, spec.pmu)).first;
    const std::vector<SysfsPmu>& pmus = it->second;
    if (pmus.empty() && is_core_pmu_name(spec.pmu))
      throw Error(fmt::format("event '{}': this machine's kernel has no core PMU '{}' in {}: perf cannot count the "
                              "CPU's own events here (no core PMU driver, or a virtual machine without a virtual PMU)",
                              spec.text, spec.pmu, machine.param("events.path").string()));
    if (pmus.empty())
      throw UsageError(fmt::format("event '{}': kernel has no PMU '{}' (is its driver loaded? PMUs are listed in {})",
                                   spec.text, spec.pmu, machine.param("events.path").string()));
    for (const SysfsPmu& pmu : pmus) out.push_back(bind_to(spec, i, pmu));
  }
  return out;
}

std::vector<std::vector<std::size_t>> plan_groups(std::span<const BoundEvent> events, Grouping grouping) {
  std::vector<std::vector<std::size_t>> plans;
  if (grouping == Grouping::none) {
    for (std::size_t i = 0; i < events.size(); ++i) plans.push_back({i});
    return plans;
  }
  // A written group's software events join the group of its first non-software PMU.
  std::map<int, std::string> anchor;
  for (const BoundEvent& e : events)
    if (e.group >= 0 && !is_software(e)) anchor.emplace(e.group, e.counter.pmu);
  std::map<std::pair<int, std::string>, std::size_t> plan_of;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const BoundEvent& e = events[i];
    std::string pmu = e.counter.pmu;
    if (is_software(e) && e.group >= 0 && anchor.count(e.group)) pmu = anchor.at(e.group);
    auto [it, added] = plan_of.emplace(std::make_pair(e.group, pmu), plans.size());
    if (added) plans.emplace_back();
    plans[it->second].push_back(i);
  }
  return plans;
}

EventSet::EventSet(const Machine& machine, std::vector<BoundEvent> events, const CountOptions& options)
    : events_(std::move(events)) {
  if (events_.empty()) throw UsageError("no events to count");
  // perf_event_open reaches this kernel's PMUs only: on a snapshot it would count the host's
  // (a snapshot PMU of type 1 would count this machine's software events), never the snapshot's.
  if (!machine.is_live() && !machine.options().live_perf)
    throw Error(fmt::format("{}: the perf backend counts this machine's kernel PMUs, not a snapshot's; on a snapshot "
                            "use --backend direct (or --live-perf to count this machine's PMUs under the "
                            "snapshot's type numbers, as pmukit's tests do)",
                            machine.describe()));
  std::vector<int> online;
  for (const auto& plan : plan_groups(events_, options.grouping)) {
    std::vector<Counter> counters;
    const BoundEvent* masked = nullptr;  // the member whose PMU has a cpumask, if any
    for (std::size_t i : plan) {
      counters.push_back(events_[i].counter);
      if (!masked && !events_[i].cpumask.empty()) masked = &events_[i];
    }
    std::vector<int> cpus;
    if (options.pid) {
      cpus = {-1};
    } else if (masked) {
      cpus = cpus_within_cpumask(*masked, options.cpus);
    } else if (!options.cpus.empty()) {
      cpus = options.cpus;
    } else {
      if (online.empty()) online = online_cpus(machine);
      cpus = online;
    }
    for (int cpu : cpus) {
      Target target = options.pid ? Target::task(*options.pid, options.inherit) : Target::on_cpu(cpu);
      groups_.emplace_back(machine, counters, target);
      members_.push_back(plan);
    }
  }
}

void EventSet::enable() {
  for (auto& g : groups_) g.enable();
}

void EventSet::disable() {
  for (auto& g : groups_) g.disable();
}

void EventSet::reset() {
  for (auto& g : groups_) g.reset();
}

std::vector<EventCount> EventSet::read() {
  std::vector<EventCount> counts;
  read(counts);
  return counts;
}

void EventSet::read(std::vector<EventCount>& counts) {
  counts.resize(events_.size());
  for (std::size_t i = 0; i < events_.size(); ++i) {
    EventCount& c = counts[i];
    c.name = events_[i].counter.name;  // the same text again: within the string's capacity
    c.pmu = events_[i].counter.pmu;
    c.unit = events_[i].counter.unit;
    c.raw = c.time_enabled = c.time_running = c.scaled = 0;
    c.instances = 0;
  }
  // Each CPU's groups from that CPU, starting where we are (see cpu_affinity.h); task groups
  // (cpu -1) from anywhere.
  std::optional<CpuVisitor> visitor;
  const int here = CpuVisitor::current();
  if (order_.empty()) {
    for (std::size_t g = 0; g < groups_.size(); ++g) order_.push_back(g);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return groups_[a].target().cpu < groups_[b].target().cpu; });
  }
  const std::size_t start =
      static_cast<std::size_t>(std::partition_point(order_.begin(), order_.end(),
                                                    [&](std::size_t g) { return groups_[g].target().cpu < here; }) -
                               order_.begin());
  int at = here;
  for (std::size_t k = 0; k < order_.size(); ++k) {
    const std::size_t g = order_[(start + k) % order_.size()];
    const int cpu = groups_[g].target().cpu;
    if (cpu >= 0 && cpu != at && visit_cpus_) {
      if (!visitor) visitor.emplace();
      if (visitor->move_to(cpu))
        at = cpu;
      else
        visit_cpus_ = false;  // not allowed there: read from where we are from now on
    }
    groups_[g].read_into(scratch_);
    for (std::size_t j = 0; j < members_[g].size(); ++j) {
      EventCount& c = counts[members_[g][j]];
      c.raw += scratch_.values[j];
      c.time_enabled += scratch_.time_enabled;
      c.time_running += scratch_.time_running;
      ++c.instances;
    }
  }
  for (std::size_t i = 0; i < counts.size(); ++i) {
    EventCount& c = counts[i];
    c.counted = c.time_running > 0;
    c.scaled = scale_count(c.raw, c.time_enabled, c.time_running);
    c.value = static_cast<double>(c.scaled) * events_[i].counter.scale;
    c.running_percent = c.time_enabled ? 100.0 * static_cast<double>(c.time_running) / c.time_enabled : 0.0;
  }
}

}  // namespace pmukit::perf
