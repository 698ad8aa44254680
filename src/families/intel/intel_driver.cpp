// pmukit -- Intel uncore PMON box driver (SPR and later: generic discovery box controls).
//
// Sequence (Linux uncore_discovery.c intel_generic_uncore_*_init_box/enable_box/disable_box,
// uncore_snbep.c spr_uncore_*_enable_event): box ctl = FRZ; box ctl = FRZ | RST_CTRL | RST_CTRS;
// per event the filter (SPR/GNR CHA with tid_en: spr_cha_hw_config, written before the control as
// spr_uncore_msr_enable_event does), then the counter control = config & the type's event mask
// (hwc->config) and nothing else: the kernel sets no enable bit in a general counter's control on
// SPR and later (bit 22, SNBEP_PMON_CTL_EN, is reserved there); a fixed counter's control gets
// SNBEP_PMON_CTL_EN alone (spr_uncore_mmio_enable_event); start: box ctl = 0; stop: box ctl = FRZ.
// Register widths are the layout's. Events go on the counters their box type's constraint table
// allows (platforms/intel/counter_constraints.json, the kernel's uncore_assign_events): IIO inbound
// events on counters 0-1, outbound on 2-3.
//
// Boxes of the kernel's fixed tables (Skylake-SP to Ice Lake-SP, BoxRules::Snbep) take the same
// sequence with their own bits (uncore_snbep.c): the box control's FRZ is bit 8 and the resets
// bits 0 and 1 (SNBEP_PMON_BOX_CTL_*; ivbep_uncore_*_init_box writes IVBEP_PMON_BOX_CTL_INT, the two
// resets), and every counter control gets SNBEP_PMON_CTL_EN with the event
// (snbep_uncore_pci_enable_event, snbep_uncore_msr_enable_event, hswep_cbox_enable_event,
// skx_iio_enable_event: hwc->config | SNBEP_PMON_CTL_EN); a counter counts only with it set.
#include "intel_driver.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/families/intel/intel_layout.h"
#include "pmukit/families/intel/intel_regs.h"
#include "pmukit/families/intel/intel_unit.h"
#include "pmukit/platform/database.h"
#include "pmukit/pmu/counter_assignment.h"
#include "pmukit/util/error.h"

namespace pmukit::pmu {

namespace {

using namespace regs::intel;
using Role = IntelRole;

constexpr std::uint64_t kFixedEvent = 0xff;                        // UNCORE_FIXED_EVENT: the box's fixed counter
constexpr RegValue<CtrCtl> kFixedEnable = CtrCtl::Enable::put(1);  // SNBEP_PMON_CTL_EN: what a fixed control is written

// The box control values and the enable a counter control gets, by the box's rules.
struct BoxBits {
  std::uint64_t freeze;      // disable_box
  std::uint64_t reset;       // freeze | the init's resets
  std::uint64_t ctl_enable;  // or'ed into every general counter control
};

BoxBits box_bits(discovery::BoxRules rules) {
  if (rules == discovery::BoxRules::Snbep)
    return {SnbepBoxCtl::Freeze::put(1).raw,
            (SnbepBoxCtl::Freeze::put(1) | SnbepBoxCtl::ResetCtrl::put(1) | SnbepBoxCtl::ResetCtrs::put(1)).raw,
            kFixedEnable.raw};
  return {BoxCtl::Freeze::put(1).raw,
          (BoxCtl::Freeze::put(1) | BoxCtl::ResetCtrl::put(1) | BoxCtl::ResetCtrs::put(1)).raw, 0};
}

// An event's claim on the box filter: the value it wants in the fields it uses.
struct FilterUse {
  std::uint64_t value;
  std::uint64_t fields;
};

// The box filter as events claim it: a field once taken keeps its value (the kernel's shared
// register: __snbep_cbox_get_constraint lets an event in when the fields it uses are free or
// hold its value, and the register gets the fields of all).
struct Filter {
  std::uint64_t value = 0;
  std::uint64_t fields = 0;
  // False when `f` wants another value in a field already taken; else takes it and says true.
  bool take(const FilterUse& f) {
    if ((value ^ f.value) & fields & f.fields) return false;
    value = (value & ~f.fields) | f.value;
    fields |= f.fields;
    return true;
  }
};

class IntelBoxDriver : public UnitDriver {
 public:
  IntelBoxDriver(const UnitLayout& layout, std::uint64_t config_mask)
      : UnitDriver(layout), u_(*unit_.as<discovery::IntelUnit>()), bits_(box_bits(u_.rules)), config_mask_(config_mask),
        box_(layout.at(Role::BoxControl)), counters_(static_cast<unsigned>(layout.count(Role::CounterControl))),
        ctl_width_(counters_ ? layout.at(Role::CounterControl).width : 64),
        fixed_(layout.find(Role::FixedControl) != nullptr), filter_(layout.find(Role::Filter)) {}

  std::optional<Busy> busy(WriteGuard& g) const override {
    for (unsigned i = 0; i < counters_; ++i) {
      const Reg& ctl = layout_.at(Role::CounterControl, i);
      if (auto v = g.read_saved(ctl)) return Busy{ctl, v, fmt::format("counter control {} is {:#x}", ctl.str(), v)};
    }
    if (fixed_) {
      const Reg& ctl = layout_.at(Role::FixedControl);
      if (auto v = g.read_saved(ctl)) return Busy{ctl, v, fmt::format("fixed counter control is {:#x}", v)};
    }
    return std::nullopt;
  }

  std::optional<DoesNotFit> fit(const std::vector<syntax::EncodedEvent>& events) const override {
    std::size_t fixed = 0;
    std::vector<std::uint32_t> masks;
    for (const auto& e : events) {
      if (is_fixed(e)) {
        if (!fixed_) return refuse("event=0xff selects a fixed counter, and this box has none");
        ++fixed;
        continue;
      }
      if (e.config1 && !filter_)
        return refuse(fmt::format("config1 {:#x} needs a filter register this box does not have", e.config1));
      if ((e.config & config_mask_) >> 32 && ctl_width_ == 32)
        return refuse(fmt::format("config {:#x} sets bits above 31 (umask extension), which its 32-bit counter control "
                                  "cannot hold",
                                  e.config));
      masks.push_back(allowed(e));
      if (!masks.back()) return never_fits(e);
    }
    if (masks.size() > counters_ || fixed > 1)
      return DoesNotFit{fmt::format("{}: {} events but the box has {} counters{}", unit_.name, events.size(), counters_,
                                    fixed_ ? " and 1 fixed counter" : ""),
                        "", false, true};
    if (!assign_counters(masks)) return crowded(events, masks);
    // One filter: every event that uses a field of it must want the same value there (the kernel's
    // shared register, __snbep_cbox_get_constraint / uncore_get_constraint: the event waits).
    Filter filter;
    for (const auto& e : events)
      if (auto f = filter_value(e); f && !filter.take(*f))
        return DoesNotFit{fmt::format("{}: {} asks for filter {:#x} but another event of the box has {:#x} there, and "
                                      "the box has one filter",
                                      unit_.name, e.name, f->value, filter.value & f->fields),
                          "", false, true};  // they take turns, as the kernel makes such an event wait
    return std::nullopt;
  }

  void reset(WriteGuard& g) override {
    // Frozen first, and kept frozen through the reset (the kernel's init_box writes the resets
    // alone), so nothing counts until start().
    g.write(box_, bits_.freeze);
    g.write(box_, bits_.reset);
  }

  void configure(WriteGuard& g, const std::vector<syntax::EncodedEvent>& events, SamplePlan& plan) override {
    // On the stack: a multiplexed box is configured at every turn (a box has at most 8 general
    // counters, UNCORE_PMC_IDX_MAX_GENERIC; fit() refused more events than it has).
    std::uint32_t masks[32];
    unsigned counter[32];
    std::size_t general = 0;
    for (const auto& e : events)
      if (!is_fixed(e) && general++ < std::size(masks)) masks[general - 1] = allowed(e);
    if (general > counters_ || general > std::size(masks) ||
        !assign_counters(std::span(masks, general), std::span(counter, general)))
      throw Error(fmt::format("{}: the events do not fit its counters (fit() was not asked)", unit_.name));
    // The box filter holds the fields of every event (the kernel's shared register, written whole
    // by hswep_cbox_enable_event before each event's control).
    Filter filter;
    for (const auto& e : events)
      if (auto f = filter_value(e); f && !filter.take(*f))
        throw Error(fmt::format("{}: the events want different filters (fit() was not asked)", unit_.name));
    std::size_t next = 0;
    for (const auto& e : events) {
      if (is_fixed(e)) {
        g.write(layout_.at(Role::FixedControl), kFixedEnable.raw);  // spr_uncore_mmio_enable_event
        plan.add(layout_.at(Role::FixedCounter), unit_.counter_width);
        continue;
      }
      const unsigned c = counter[next++];
      if (filter_value(e)) write_filter(g, filter.value);  // reg1 before the control
      g.write(layout_.at(Role::CounterControl, c), (e.config & config_mask_) | bits_.ctl_enable);
      plan.add(layout_.at(Role::Counter, c), unit_.counter_width);
    }
  }

  void start(WriteGuard& g) override { g.write(box_, 0); }
  void stop(WriteGuard& g) override { g.write(box_, bits_.freeze); }

  void restore(WriteGuard& g, RestorePhase phase) override {
    // Frozen so nothing counts while the registers go back, and the box control last.
    if (phase == RestorePhase::Quiesce) g.write(box_, bits_.freeze);
    if (phase != RestorePhase::PutBack) return;
    for (const auto& r : layout_.registers)
      if (r.owned && !r.is(Role::BoxControl)) g.write(r.reg, g.original(r.reg));
    g.write(box_, g.original(box_));
  }

 private:
  // uncore_pmu_event_init: attr.config == UNCORE_FIXED_EVENT selects the fixed counter.
  static bool is_fixed(const syntax::EncodedEvent& e) { return e.config == kFixedEvent; }
  // What the event writes to the box's filter register, if it uses it: config1 & the filter's mask
  // when the event sets the filter's enable bit (spr_cha_hw_config: only with tid_en), or, with
  // selectors, config1 & the fields its event code selects (skx_cha_hw_config: the extra_regs of
  // its code, skx_cha_filter_mask).
  std::optional<FilterUse> filter_value(const syntax::EncodedEvent& e) const {
    if (!filter_ || is_fixed(e)) return std::nullopt;
    if (!u_.filter_selectors.empty()) {
      std::uint64_t fields = 0;
      for (const auto& s : u_.filter_selectors)
        if ((e.config & s.event_mask) == s.event) fields |= s.mask;
      if (!fields) return std::nullopt;
      return FilterUse{e.config1 & fields & u_.filter_mask, fields & u_.filter_mask};
    }
    if (u_.filter_enable_bit >= 0 ? !(e.config >> u_.filter_enable_bit & 1) : !e.config1) return std::nullopt;
    return FilterUse{e.config1 & u_.filter_mask, u_.filter_mask};
  }
  // hswep_cbox_enable_event: the low 32 bits to FILTER0, the high to FILTER1 (when the box has two).
  void write_filter(WriteGuard& g, std::uint64_t v) const {
    const UnitRegister* high = layout_.find(Role::Filter, 1);
    if (!high) return g.write(filter_->reg, v);
    g.write(filter_->reg, v & 0xffffffffu);
    g.write(high->reg, v >> 32);
  }
  DoesNotFit refuse(std::string why) const { return DoesNotFit{fmt::format("{}: {}", unit_.name, why), ""}; }

  // The general counters an event may use: those its box type's constraint rule names (the kernel
  // checks the same table in uncore_get_event_constraint), else every one.
  std::uint32_t allowed(const syntax::EncodedEvent& e) const {
    const std::uint32_t all = counters_ >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << counters_) - 1;
    if (!u_.counter_constraints) return all;
    return u_.counter_constraints->counters_for(e.config).value_or(all) & all;
  }

  // "event 0x83 may use only counters 0,1 (Linux uncore_snbep.c icx_uncore_iio_constraints)"
  std::string rule_of(std::uint64_t config) const {
    const auto& c = *u_.counter_constraints;
    return fmt::format("event {:#04x} may use only counters {} ({})", config & c.event_mask,
                       counter_list(*c.counters_for(config)), c.source);
  }

  DoesNotFit never_fits(const syntax::EncodedEvent& e) const {
    return DoesNotFit{
        fmt::format("{}: {}: {}, and the box has {} counters", unit_.name, e.name, rule_of(e.config), counters_), "",
        true};
  }

  // Too many events confined to too few counters: names them and the rules that confine them.
  DoesNotFit crowded(const std::vector<syntax::EncodedEvent>& events, const std::vector<std::uint32_t>& masks) const {
    const std::uint32_t s = crowded_counters(masks);
    std::vector<std::string> names, rules;
    std::size_t k = 0;
    for (const auto& e : events) {
      if (is_fixed(e) || (masks[k++] & ~s)) continue;
      names.push_back(e.name);
      if (u_.counter_constraints && u_.counter_constraints->counters_for(e.config)) {
        std::string r = rule_of(e.config);
        if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(std::move(r));
      }
    }
    return DoesNotFit{fmt::format("{}: {} events ({}) share counters {}: {}", unit_.name, names.size(),
                                  fmt::join(names, ", "), counter_list(s), fmt::join(rules, "; ")),
                      "", false, true};
  }

  static std::string counter_list(std::uint32_t mask) {
    std::vector<unsigned> on;
    for (unsigned i = 0; i < 32; ++i)
      if (mask >> i & 1) on.push_back(i);
    return fmt::format("{}", fmt::join(on, ","));
  }

  const discovery::IntelUnit& u_;
  BoxBits bits_;
  std::uint64_t config_mask_;  // hwc->config = attr.config & (event_mask | event_mask_ext << 32)
  const Reg& box_;
  unsigned counters_;
  unsigned ctl_width_;  // MMIO counter controls are 32-bit: no umask extension
  bool fixed_;
  const UnitRegister* filter_;
};

}  // namespace

std::unique_ptr<UnitDriver> make_intel_box(const UnitLayout& layout, const platform::Database& db) {
  const auto& unit = *layout.unit;
  const auto& iu = *unit.as<discovery::IntelUnit>();
  if (iu.access == discovery::RegAccess::Msr && iu.msr_cpu < 0)
    throw Error(fmt::format("{}: no CPU of socket {} is known to reach its MSRs", unit.name, unit.socket));
  const platform::PmuKind* kind = db.pmu_kind(unit.pmu_kind);
  return std::make_unique<IntelBoxDriver>(layout, kind && kind->config_mask ? *kind->config_mask : ~std::uint64_t{0});
}

}  // namespace pmukit::pmu
