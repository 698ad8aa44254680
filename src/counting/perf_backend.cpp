// pmukit -- perf_event_open counting through pmukit::perf::EventSet (one read(2) per group).
#include "perf_backend.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/perf/event_set.h"
#include "pmukit/util/error.h"

namespace pmukit::counting {

namespace {

// -C: whether `cpu` is one of the CPUs chosen (every CPU when none are).
bool chosen(const std::vector<int>& cpus, int cpu) {
  return cpus.empty() || std::find(cpus.begin(), cpus.end(), cpu) != cpus.end();
}

// -A: the CPUs each event counts on (its PMU's cpumask, or every CPU of the topology), within -C.
std::map<int, std::vector<perf::BoundEvent>> events_per_cpu(const std::vector<perf::BoundEvent>& bound,
                                                            const discovery::Topology& topo,
                                                            const std::vector<int>& cpus) {
  std::map<int, std::vector<perf::BoundEvent>> out;
  for (const auto& b : bound) {
    std::vector<int> on = b.cpumask;
    if (on.empty())
      for (const auto& [cpu, place] : topo.cpus) on.push_back(cpu);
    for (int cpu : on)
      if (chosen(cpus, cpu)) out[cpu].push_back(b);
  }
  if (out.empty())
    throw UsageError(
        fmt::format("-C {}: the events' PMUs count on none of these CPUs (their cpumasks)", fmt::join(cpus, ",")));
  return out;
}

struct SocketSet {
  int socket = -1;  // -1: every CPU the PMUs name (one set for all sockets)
  int cpu = -1;     // -A: the one CPU the set counts on
  std::unique_ptr<perf::EventSet> set;
  std::vector<perf::EventCount> last;
  std::vector<perf::EventCount> now;  // the latest read; it and `last` trade places after each read
};

class PerfBackend : public Backend {
 public:
  PerfBackend(Machine& machine, std::vector<syntax::EventSpec> specs, std::vector<std::size_t> spec_index,
              PerfSplit split, const discovery::Topology& topo, const std::vector<int>& cpus)
      : specs_(std::move(specs)), spec_index_(std::move(spec_index)) {
    auto bound = perf::bind_events(machine, specs_);
    if (split == PerfSplit::PerCpu) {
      for (auto& [cpu, events] : events_per_cpu(bound, topo, cpus)) {
        perf::CountOptions opts;
        opts.cpus = {cpu};
        auto place = topo.cpus.find(cpu);
        const int socket = place == topo.cpus.end() ? 0 : place->second.package;
        sets_.push_back({socket, cpu, std::make_unique<perf::EventSet>(machine, std::move(events), opts), {}, {}});
      }
    } else if (split == PerfSplit::PerSocket && !topo.packages().empty()) {
      for (int p : topo.packages()) {
        perf::CountOptions opts;
        for (const auto& [cpu, place] : topo.cpus)
          if (place.package == p && chosen(cpus, cpu)) opts.cpus.push_back(cpu);
        if (opts.cpus.empty()) continue;  // -C left none of this socket's CPUs
        sets_.push_back({p, -1, std::make_unique<perf::EventSet>(machine, bound, opts), {}, {}});
      }
    } else {
      perf::CountOptions opts;
      opts.cpus = cpus;  // -C: only these CPUs (within each PMU's cpumask); empty: each PMU's cpumask
      sets_.push_back({-1, -1, std::make_unique<perf::EventSet>(machine, bound, opts), {}, {}});
    }
    for (const auto& b : bound) pmus_.insert(b.counter.pmu);
  }

  void start() override {
    for (auto& s : sets_) {
      s.set->reset();
      s.last = s.set->read();
    }
    for (auto& s : sets_) s.set->enable();
  }
  void stop() override {
    for (auto& s : sets_) s.set->disable();
  }

  void read(std::uint64_t, std::vector<Row>& rows) override {
    for (auto& s : sets_) {
      auto& now = s.now;
      s.set->read(now);
      const auto& events = s.set->events();
      for (std::size_t i = 0; i < now.size(); ++i) {
        const auto &c = now[i], &p = s.last[i];
        Row r;
        r.spec = spec_index_[events[i].spec];
        r.event = events[i].counter.name;  // the set's own strings: they outlive every read
        r.pmu = events[i].counter.pmu;
        r.socket = s.socket;
        r.cpu = s.cpu;
        r.enabled_ns = c.time_enabled - p.time_enabled;
        r.running_ns = c.time_running - p.time_running;
        // Scale the interval's own counts for multiplexing, as perf stat -I does.
        r.raw = c.raw - p.raw;
        scale_row(r);
        r.scale = events[i].counter.scale;
        r.unit = events[i].counter.unit;
        r.backend = "perf";
        r.units = static_cast<std::uint32_t>(std::max<std::size_t>(c.instances, 1));
        rows.push_back(std::move(r));
      }
      s.last.swap(now);  // both keep their storage for the next read
    }
  }

  std::vector<std::string> notes() const override {
    return {fmt::format("perf_event_open ({} kernel PMU{}: {})", pmus_.size(), pmus_.size() == 1 ? "" : "s",
                        fmt::join(pmus_, ", "))};
  }

 private:
  std::vector<syntax::EventSpec> specs_;
  std::vector<std::size_t> spec_index_;
  std::vector<SocketSet> sets_;
  std::set<std::string> pmus_;
};

}  // namespace

std::unique_ptr<Backend> make_perf_backend(Machine& machine, std::vector<syntax::EventSpec> specs,
                                           std::vector<std::size_t> spec_index, PerfSplit split,
                                           const discovery::Topology& topology, const std::vector<int>& cpus) {
  return std::make_unique<PerfBackend>(machine, std::move(specs), std::move(spec_index), split, topology, cpus);
}

}  // namespace pmukit::counting
