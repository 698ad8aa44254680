// pmukit -- perfmon event names in -e.
#include "pmukit/counting/event_file.h"

#include <fmt/format.h>

#include "pmukit/platform/database.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/util/error.h"
#include "pmukit/util/suggest.h"
#include "pmukit/util/text.h"

namespace pmukit::counting {

namespace {

// The event `name` stands for, unless the kernel names it: the first file's.
const events::PerfmonEvent* lookup(const std::vector<const events::PerfmonEvents*>& files, std::string_view name,
                                   const std::set<std::string, std::less<>>& kernel_names) {
  if (kernel_names.count(to_lower(name))) return nullptr;
  for (const auto* f : files)
    if (const auto* e = f->find(name)) return e;
  return nullptr;
}

// Whether an event of PMU type `type` (uncore_imc) counts on the PMU a spec names: the type
// itself (perf's merged name) or one of its numbered PMUs (uncore_imc_3).
bool counts_on(std::string_view pmu, std::string_view type) {
  auto family = numbered_family(pmu);
  return pmu == type || (family && *family == type);
}

// " (did you mean 'unc_m_cas_count.rd'?)" for a name that is no event of the files but near one of
// those that count on `pmu` (for a bare name, "" here: any PMU's, and the kernel's names too), as
// perf names them; "" otherwise. A name the kernel gives a PMU here is never taken for a misspelling.
std::string near_event(const std::vector<const events::PerfmonEvents*>& files, std::string_view name,
                       std::string_view pmu, const std::set<std::string, std::less<>>& kernel_names) {
  if (kernel_names.count(to_lower(name))) return "";
  std::vector<std::string> names(kernel_names.begin(), kernel_names.end());  // cas_count -> cas_count_read
  // On a PMU, a word near the kernel's names is the encoder's to answer, with that PMU's own names.
  if (!pmu.empty() && !near_names(name, names, 1).empty()) return "";
  if (!pmu.empty()) names.clear();
  for (const auto* f : files)
    for (const auto& e : f->events())
      if (pmu.empty() || counts_on(pmu, e.pmu_type)) names.push_back(to_lower(e.name));
  return did_you_mean(name, names);
}

}  // namespace

std::map<std::size_t, SpecScale> apply_event_files(const std::vector<events::PerfmonEvents>& files,
                                                   std::vector<syntax::EventSpec>& specs) {
  std::vector<const events::PerfmonEvents*> all;
  for (const auto& f : files) all.push_back(&f);
  return apply_event_files(all, specs, {});
}

std::map<std::size_t, SpecScale> apply_event_files(const std::vector<const events::PerfmonEvents*>& files,
                                                   std::vector<syntax::EventSpec>& specs,
                                                   const std::set<std::string, std::less<>>& kernel_names) {
  std::map<std::size_t, SpecScale> scales;
  if (files.empty()) return scales;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    auto& s = specs[i];
    if (s.pmu.empty() && s.terms.size() == 1 && !s.terms[0].value) {
      const auto* e = lookup(files, s.terms[0].key, kernel_names);
      if (!e) {
        if (auto hint = near_event(files, s.terms[0].key, "", kernel_names); !hint.empty())
          throw UsageError(fmt::format("event '{}': no event of that name{}", s.text, hint));
        continue;
      }
      if (s.name.empty()) s.name = s.terms[0].key;  // as written, as perf shows it
      s.pmu = e->pmu_type;
      s.terms = syntax::parse_terms(e->terms);
      s.text = s.pmu + "/" + e->terms + "/";
      scales[i] = {e->scale, e->scale_unit};
      continue;
    }
    std::vector<syntax::Term> rewritten;
    bool changed = false;
    for (const auto& t : s.terms) {
      const events::PerfmonEvent* e = t.value ? nullptr : lookup(files, t.key, kernel_names);
      if (e && !counts_on(s.pmu, e->pmu_type)) e = nullptr;  // another PMU's event: not this PMU's name
      if (!e) {
        if (auto hint = t.value ? "" : near_event(files, t.key, s.pmu, kernel_names); !hint.empty())
          throw UsageError(fmt::format("event '{}': unknown term '{}' for pmu '{}'{}", s.text, t.key, s.pmu, hint));
        rewritten.push_back(t);
        continue;
      }
      for (auto& term : syntax::parse_terms(e->terms)) rewritten.push_back(std::move(term));
      scales[i] = {e->scale, e->scale_unit};
      changed = true;
    }
    if (changed) s.terms = std::move(rewritten);
  }
  return scales;
}

std::set<std::string, std::less<>> kernel_event_names(const std::vector<std::string>& kinds) {
  const auto& db = platform::Database::builtin();
  std::set<std::string, std::less<>> names;
  for (const auto& kind : kinds)
    if (const auto* k = db.pmu_kind(kind))
      for (const auto& [name, alias] : k->events) names.insert(to_lower(name));
  return names;
}

}  // namespace pmukit::counting
