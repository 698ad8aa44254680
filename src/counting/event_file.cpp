// pmukit -- perfmon event names in -e.
#include "pmukit/counting/event_file.h"

#include "pmukit/syntax/event_parser.h"

namespace pmukit::counting {

namespace {
const events::PerfmonEvent* lookup(const std::vector<events::PerfmonEvents>& files, std::string_view name) {
  for (const auto& f : files)
    if (const auto* e = f.find(name)) return e;
  return nullptr;
}
}  // namespace

std::map<std::size_t, SpecScale> apply_event_files(const std::vector<events::PerfmonEvents>& files,
                                                   std::vector<syntax::EventSpec>& specs) {
  std::map<std::size_t, SpecScale> scales;
  if (files.empty()) return scales;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    auto& s = specs[i];
    if (s.pmu.empty() && s.terms.size() == 1 && !s.terms[0].value) {
      const auto* e = lookup(files, s.terms[0].key);
      if (!e) continue;
      s.pmu = e->pmu_type;
      s.terms = syntax::parse_terms(e->terms);
      if (s.name.empty()) s.name = e->name;
      s.text = s.pmu + "/" + e->terms + "/";
      scales[i] = {e->scale, e->scale_unit};
      continue;
    }
    std::vector<syntax::Term> rewritten;
    bool changed = false;
    for (const auto& t : s.terms) {
      const events::PerfmonEvent* e = t.value ? nullptr : lookup(files, t.key);
      if (!e) {
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

}  // namespace pmukit::counting
