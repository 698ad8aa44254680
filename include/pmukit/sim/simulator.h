// pmukit -- the simulator: makes a snapshot machine's PMU registers behave like hardware.
//
// It maps the same files pmu-raw maps (resourceN, dev/mem, dev/cpu/N/msr, config), reads the
// control registers at every step, applies their side effects (box reset, PMCR.P/C, counter clear,
// write-one-to-set/clear banks) and advances every enabled counter by rate x elapsed time,
// wrapping at the counter's width and raising overflow flags where the hardware has them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/discovery/inventory.h"
#include "pmukit/pmu/register_io.h"
#include "pmukit/pmu/settle.h"
#include "pmukit/pmu/unit_layout.h"

namespace pmukit {
class Machine;
class RegisterWindow;
}  // namespace pmukit

namespace pmukit::sim {

// An event's rate: counts per second, or exactly `count` counts every `per_ns` nanoseconds -- a
// scenario's documented count over its documented span, which an Accumulator then reproduces to
// the unit (a double of count / span would not).
struct Rate {
  double per_s = 0;
  std::uint64_t count = 0, per_ns = 0;  // exact when per_ns != 0

  static Rate of(double per_s);  // a whole number of counts per second is kept exact
  static Rate exact(std::uint64_t count, std::uint64_t per_ns) { return {0, count, per_ns}; }
  double per_second() const { return per_ns ? static_cast<double>(count) * 1e9 / static_cast<double>(per_ns) : per_s; }
  // This rate times num / den, exact when it was and the product still fits; else per second.
  Rate times(std::uint64_t num, std::uint64_t den) const;
  Rate scaled(double share) const { return share == 1.0 ? *this : of(per_second() * share); }
  // The sum of two rates, exact when both are and it fits.
  Rate plus(const Rate& other) const;
};

// Counts per second of simulated time, by PMU kind and the family's event code; per unit, and a
// workload scenario's documented counts, on top (platforms/sim/rates.json, platforms/sim/scenarios/).
class Rates {
 public:
  static Rates defaults();  // platforms/sim/rates.json
  // "KIND:CODE=RATE", "KIND=RATE" (every event of KIND), "cycles=HZ", "default=RATE";
  // CODE is a number or "cycles"/"fixed". Throws UsageError naming the rule.
  void add_rule(std::string_view rule);
  // A workload scenario (platforms/sim/scenarios/*.json, docs/simulator.md): `what` names it in
  // errors. Its rules come before every other but --rate's. Throws Error naming `what`.
  void add_scenario(std::string_view json, const std::string& what);
  // The units a scenario's rules name (without a '*'), which the simulated machine must have.
  const std::vector<std::string>& scenario_units() const { return scenario_units_; }
  double rate(const std::string& kind, std::string_view code) const;
  double rate(const std::string& kind, std::uint64_t code) const;
  // The rate of `code` on the unit named `unit` of kind `kind`, in this order: a --rate rule, a
  // per-unit or per-kind rule (a scenario's, then rates.json's "units"), an occupancy rule
  // (outstanding = requests x latency x the unit's cycle rate), the kind's default rule. A derived
  // rule (the sum of other events' rates) comes after the rules for this very code and before
  // those for every code of a unit.
  Rate lookup(std::string_view unit, const std::string& kind, std::string_view code, unsigned depth = 0) const;
  Rate lookup(std::string_view unit, const std::string& kind, std::uint64_t code) const;
  // Whether a rule names exactly this kind and code (no fallback to "*" or the default).
  bool has(const std::string& kind, std::string_view code) const;
  // The same, counting a scenario's rules for this unit too.
  bool names(std::string_view unit, const std::string& kind, std::string_view code) const;
  // The invented IIO traffic of rates.json's iio_traffic: what an IIO counter control `ctl` on
  // the stack PMU `unit` (uncore_iio_<n>) multiplies its rate by -- the stack's share, and for a
  // part-filtered event the shares of the parts its ch_mask selects times the fraction of the
  // classes its fc_mask selects. 1 for every other kind and event, and for an event whose rate a
  // --rate rule set (add_rule): that rate is what each counter counts.
  double traffic_share(const std::string& kind, std::uint64_t ctl, std::string_view unit) const;

  // A rule of a scenario or of rates.json's "units": a unit name (a trailing '*' matches any
  // rest) or a PMU kind, and an event code (or "*").
  struct Match {
    std::string unit, kind, code;
    bool matches(std::string_view u, const std::string& k, const std::string& c) const;
  };
  // Which ports and devices a filter register selects have traffic: an event whose filter selects
  // none of them counts 0, as on hardware.
  struct TrafficFilter {
    Match unit;                       // code "*"
    std::uint64_t port_mask = 0;      // the port bitmask's bits in the register; 0 in them means all
    std::uint64_t ports = 0;          // the ports with traffic
    int bdf_enable = -1;              // the bit that selects the BDF filter instead, -1 if none
    unsigned bdf_shift = 0;           // where the BDF (bus << 8 | device << 3 | function) sits
    std::vector<std::uint64_t> bdfs;  // the devices with traffic
  };
  // 1 when the CoreSight PMEVFILTR value `filter` selects a port or device with traffic (or the unit
  // has no rule), else 0.
  double filter_share(std::string_view unit, const std::string& kind, std::uint64_t filter) const;
  struct Occupancy {  // cumulative outstanding counts requests x latency, in the unit's cycles
    Match outstanding;
    std::string requests;  // canonical code
    std::uint64_t latency_ns = 0;
  };
  struct Derived {  // an event that counts what others do together (total = read + write)
    Match event;
    std::vector<std::string> sum;  // canonical codes
  };

 private:
  struct IioTraffic {
    std::vector<std::string> kinds, part_events, stack_events;  // canonical hex codes
    std::vector<double> part_share, stack_share;
  };
  std::map<std::pair<std::string, std::string>, double> rules_;  // (kind or "*", code or "*")
  double default_ = 1e6;
  IioTraffic iio_;
  std::set<std::pair<std::string, std::string>> exact_;  // (kind, code or "*") set by add_rule
  std::vector<std::pair<Match, Rate>> matched_;          // scenario rules first, then rates.json's
  std::vector<Occupancy> occupancy_;                     // the same order
  std::vector<Derived> derived_;                         // the same order
  std::vector<TrafficFilter> filters_;                   // the same order
  std::vector<std::string> scenario_units_;              // add_scenario's unit names
};

// Advances counts by rate * dt without drift: the fractional part carries to the next step.
class Accumulator {
 public:
  std::uint64_t advance(double rate, std::uint64_t dt_ns);
  std::uint64_t advance(const Rate& rate, std::uint64_t dt_ns);
  void reset() { carry_ = 0, rem_ = 0; }

 private:
  long double carry_ = 0;  // fractional count (rates that are not exact)
  std::uint64_t rem_ = 0;  // count x ns short of a whole count (exact rates)
};

// The registers the models step: MMIO blocks and config space reached as pmu-raw reaches them, and
// a snapshot's MSR files mapped whole (the simulator reads every control register of every unit
// at each step; a pread per MSR would dominate).
class Registers {
 public:
  explicit Registers(Machine& machine);
  ~Registers();
  Registers(const Registers&) = delete;
  Registers& operator=(const Registers&) = delete;
  std::uint64_t read(const pmu::Reg& r);
  void write(const pmu::Reg& r, std::uint64_t value);
  void map(const pmu::UnitLayout& layout);  // the unit's MMIO blocks, as its driver maps them

 private:
  RegisterWindow* msr_window(int cpu);

  Machine& machine_;
  pmu::RegisterIo io_;
  std::map<int, std::unique_ptr<RegisterWindow>> msr_;
};

class UnitModel {
 public:
  virtual ~UnitModel() = default;
  virtual void step(Registers& io, std::uint64_t dt_ns) = 0;
  // Writes the hardware would refuse (a reserved bit set), as step() found them; the simulator
  // takes them after each step.
  std::vector<std::string> faults;
};

// Also the settle point of an in-process session (tests): settling is a step of no time.
class Simulator : public pmu::Settle {
 public:
  Simulator(Machine& machine, const discovery::Inventory& inventory, Rates rates);
  ~Simulator() override;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  // Applies side effects and advances every enabled counter by dt_ns of simulated time.
  void step(std::uint64_t dt_ns);
  void settle() override { step(0); }
  std::size_t units() const { return models_.size(); }
  const std::vector<std::string>& skipped() const { return skipped_; }  // units it cannot model
  // Every register write a model found the hardware would refuse (a reserved bit set), in the
  // order found, each once: "uncore_cha_1: counter control 0 (MSR 0x2012 (CPU 0)) = 0x400001 sets
  // reserved bit 22: ...". pmu-sim run prints them as they appear.
  const std::vector<std::string>& faults() const { return faults_; }

 private:
  Rates rates_;
  std::unique_ptr<Registers> io_;
  std::vector<std::unique_ptr<pmu::UnitLayout>> layouts_;  // models keep references
  std::vector<std::unique_ptr<UnitModel>> models_;
  std::vector<std::string> skipped_;
  std::vector<std::string> faults_;
};

// The family models (sim/*_model.cpp), each stepping a unit's registers as its layout places them;
// nullptr when the unit cannot be modelled (its registers are not all known).
std::unique_ptr<UnitModel> make_intel_model(const pmu::UnitLayout& layout, const Rates& rates);
std::unique_ptr<UnitModel> make_coresight_model(const pmu::UnitLayout& layout, const Rates& rates);
std::unique_ptr<UnitModel> make_dwc_model(const pmu::UnitLayout& layout, const Rates& rates);
std::unique_ptr<UnitModel> make_t410_model(const pmu::UnitLayout& layout, const Rates& rates);
std::unique_ptr<UnitModel> make_cmn_model(const pmu::UnitLayout& layout, const Rates& rates);

}  // namespace pmukit::sim
