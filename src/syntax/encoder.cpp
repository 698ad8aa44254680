// pmukit -- the perf-rules encoder: aliases, raw config words, format fields.
#include "pmukit/syntax/encoder.h"

#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"
#include "pmukit/util/suggest.h"
#include "pmukit/util/text.h"

namespace pmukit::syntax {

const EventAlias* find_alias(const PmuDescription& pmu, std::string_view name) {
  if (auto it = pmu.aliases.find(std::string(name)); it != pmu.aliases.end()) return &it->second;
  for (const auto& [key, alias] : pmu.aliases)
    if (iequals(key, name)) return &alias;
  return nullptr;
}

namespace {

// config=, config1=, config2= address a whole word; anything else is a format or an alias.
int config_word(std::string_view key) {
  if (key == "config") return 0;
  if (key == "config1") return 1;
  if (key == "config2") return 2;
  return -1;
}

struct PendingTerm {
  Term term;
  const EventAlias* alias = nullptr;  // set when the term came from expanding this alias
};

class Encoder {
 public:
  Encoder(const EventSpec& spec, const PmuDescription& pmu) : spec_(spec), pmu_(pmu) {}

  EncodedEvent run() {
    EncodedEvent out;
    out.name = spec_.name.empty() ? spec_.text : spec_.name;
    std::vector<PendingTerm> alias_terms, user_terms;
    for (const Term& t : spec_.terms) {
      if (const EventAlias* alias = alias_for(t)) {
        take_scale_and_unit(*alias, out);
        for (Term& at : alias_terms_of(*alias)) alias_terms.push_back({std::move(at), alias});
      } else {
        user_terms.push_back({t, nullptr});
      }
    }
    // Alias terms first, so the user's explicit terms override them.
    std::vector<PendingTerm> terms = std::move(alias_terms);
    terms.insert(terms.end(), user_terms.begin(), user_terms.end());

    ConfigWords raw{};
    std::map<std::string, std::uint64_t> fields;            // field name -> value
    std::map<std::string, const EventAlias*> unset_params;  // alias "x=?" terms still open
    for (const PendingTerm& p : terms) {
      const std::string& key = p.term.key;
      if (int word = config_word(key); word >= 0) {
        raw.at(static_cast<std::size_t>(word)) = p.term.value ? number(p) : 1;
        continue;
      }
      auto format = pmu_.formats.find(key);
      if (format == pmu_.formats.end()) unknown_term(p);
      if (p.alias && p.term.value == "?") {
        if (!fields.count(key)) unset_params[key] = p.alias;
        continue;
      }
      std::uint64_t value = p.term.value ? number(p) : 1;  // a bare format term means 1
      if (value > format_max(format->second))
        fail(fmt::format("value {} too big for format '{}' ({}, maximum {})", p.term.value.value_or("1"), key,
                         format_text(format->second), hex(format_max(format->second))));
      fields[key] = value;
      unset_params.erase(key);
    }
    if (!unset_params.empty()) {
      const auto& [key, alias] = *unset_params.begin();
      fail(fmt::format("term '{}' needs a value: event '{}' of pmu '{}' has {}=?", key, alias->name, pmu_as_written(),
                       key));
    }

    ConfigWords words = raw;
    for (const auto& [key, value] : fields) {
      ConfigWords bits = spread_value(pmu_.formats.at(key), value);
      for (std::size_t i = 0; i < words.size(); ++i) words[i] |= bits[i];
    }
    out.config = words[0];
    out.config1 = words[1];
    out.config2 = words[2];
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const {
    throw UsageError(fmt::format("event '{}': {}", spec_.text, reason));
  }

  // The alias a user term names, if any (perf's pmu_find_alias()).
  const EventAlias* alias_for(const Term& t) const {
    if (config_word(t.key) >= 0) return nullptr;
    if (!t.value) {
      if (pmu_.formats.count(t.key)) return nullptr;  // a bare format term, value 1
      return find_alias(pmu_, t.key);                 // nullptr: reported as an unknown term
    }
    if (t.key == "event" && !parse_u64(*t.value)) {
      if (const EventAlias* alias = find_alias(pmu_, *t.value)) return alias;
      fail(fmt::format("value '{}' of term 'event' is neither a number nor an event of pmu '{}'{}", *t.value,
                       pmu_as_written(), did_you_mean(*t.value, event_names())));
    }
    return nullptr;
  }

  std::vector<Term> alias_terms_of(const EventAlias& alias) const {
    try {
      return parse_terms(alias.terms);
    } catch (const UsageError& e) {
      // The description is broken, not the user's input.
      throw Error(fmt::format("pmu '{}': event '{}': {}", pmu_.name, alias.name, e.what()));
    }
  }

  void take_scale_and_unit(const EventAlias& alias, EncodedEvent& out) {
    if (!alias.unit.empty()) {
      if (unit_from_) fail(fmt::format("events '{}' and '{}' both set a unit", unit_from_->name, alias.name));
      out.unit = alias.unit;
      unit_from_ = &alias;
    }
    if (alias.scale != 1.0) {
      if (scale_from_) fail(fmt::format("events '{}' and '{}' both set a scale", scale_from_->name, alias.name));
      out.scale = alias.scale;
      scale_from_ = &alias;
    }
  }

  std::uint64_t number(const PendingTerm& p) const {
    if (auto v = parse_u64(*p.term.value)) return *v;
    if (p.alias)
      throw Error(fmt::format("pmu '{}': event '{}': value '{}' of term '{}' is not a number", pmu_.name, p.alias->name,
                              *p.term.value, p.term.key));
    fail(fmt::format("value '{}' of term '{}' is not a number", *p.term.value, p.term.key));
  }

  [[noreturn]] void unknown_term(const PendingTerm& p) const {
    if (p.alias)
      throw Error(fmt::format("pmu '{}': event '{}' uses unknown term '{}'", pmu_.name, p.alias->name, p.term.key));
    std::vector<std::string> terms;
    for (const auto& [name, field] : pmu_.formats) terms.push_back(name);
    for (const char* word : {"config", "config1", "config2", "name"}) terms.emplace_back(word);
    std::vector<std::string> near = terms;
    if (!p.term.value) {  // a bare word may be a misspelt event as well as a misspelt term
      auto events = event_names();
      near.insert(near.end(), events.begin(), events.end());
    }
    fail(fmt::format("unknown term '{}' for pmu '{}'{} (valid terms: {})", p.term.key, pmu_as_written(),
                     did_you_mean(p.term.key, near), fmt::join(terms, ",")));
  }

  // The PMU as the user wrote it ("uncore_imc", not the first box "uncore_imc_0" it was encoded
  // for); a bare-name event names the PMU it was found in.
  const std::string& pmu_as_written() const { return spec_.pmu.empty() ? pmu_.name : spec_.pmu; }

  std::vector<std::string> event_names() const {
    std::vector<std::string> names;
    for (const auto& [name, alias] : pmu_.aliases) names.push_back(name);
    return names;
  }

  const EventSpec& spec_;
  const PmuDescription& pmu_;
  const EventAlias* unit_from_ = nullptr;
  const EventAlias* scale_from_ = nullptr;
};

}  // namespace

EncodedEvent encode(const EventSpec& spec, const PmuDescription& pmu) {
  return Encoder(spec, pmu).run();
}

}  // namespace pmukit::syntax
