// pmukit -- the -e event list parser: a small hand-written scanner that remembers columns.
#include "pmukit/syntax/event_parser.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "pmukit/util/text.h"

namespace pmukit::syntax {

bool is_modifier_char(char c) {
  return c != '\0' && std::string_view("ukhpPGHSDIWeb").find(c) != std::string_view::npos;
}

namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// PMU names, bare event names and tracepoint parts; '*', '?' and '[]' are PMU-name globs.
bool is_name_char(char c) {
  return is_alnum(c) || c == '_' || c == '.' || c == '-' || c == '*' || c == '?' || c == '[' || c == ']';
}
// Term keys: format names, alias names ("unc_m_cas_count.rd"), config words.
bool is_key_char(char c) {
  return is_alnum(c) || c == '_' || c == '.' || c == '-';
}
// An unquoted value runs to the next ',' or '/' (values never contain commas); '=' inside one is
// a typo perf rejects too.
bool is_value_char(char c) {
  return !is_space(c) && c != ',' && c != '/' && c != '=' && c != '\'' && c != '"' && c != '{' && c != '}';
}

std::string describe_char(char c) {
  return is_space(c) ? std::string("a space") : fmt::format("'{}'", c);
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::vector<EventSpec> event_list() {
    std::vector<EventSpec> out;
    skip_ws();
    if (at_end()) throw EventSyntaxError("event list is empty", 1);
    for (;;) {
      std::size_t start = pos_;
      if (peek() == '{') {
        group(out);
      } else if (peek() == ',' || peek() == '}') {
        fail("event", start, pos_, fmt::format("unexpected '{}' where an event should be", peek()));
      } else {
        out.push_back(event(-1));
      }
      skip_ws();
      if (at_end()) break;
      if (peek() != ',')
        fail("event", start, pos_, fmt::format("unexpected {} after the event", describe_char(peek())));
      std::size_t comma = pos_++;
      skip_ws();
      if (at_end() || peek() == ',') fail("event list", 0, comma, "empty event after ','");
    }
    return out;
  }

  std::vector<Term> bare_terms() {
    skip_ws();
    if (at_end()) fail("terms", 0, pos_, "no terms");
    std::vector<Term> terms;
    for (;;) {
      terms.push_back(term(0, "terms"));
      skip_ws();
      if (at_end()) break;
      if (peek() != ',') fail("terms", 0, pos_, fmt::format("unexpected {} after a term", describe_char(peek())));
      std::size_t comma = pos_++;
      skip_ws();
      if (at_end() || peek() == ',') fail("terms", 0, comma, "empty term after ','");
    }
    return terms;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_ws() {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }
  template <class Pred>
  std::string_view scan(Pred pred) {
    std::size_t start = pos_;
    while (!at_end() && pred(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // "<what> '<text from start through the character the scan stopped on>': <reason> (column N)".
  [[noreturn]] void fail(std::string_view what, std::size_t start, std::size_t where, std::string_view reason) const {
    std::size_t end = std::min(text_.size(), std::max(pos_, where) + 1);
    std::string_view shown = trim(text_.substr(start, end > start ? end - start : 0));
    throw EventSyntaxError(fmt::format("{} '{}': {} (column {})", what, shown, reason, where + 1), where + 1);
  }

  void group(std::vector<EventSpec>& out) {
    std::size_t open = pos_++;
    int index = groups_++;
    std::size_t first = out.size();
    for (;;) {
      skip_ws();
      if (at_end()) fail("group", open, open, "missing closing '}'");
      if (peek() == '{') fail("group", open, pos_, "groups cannot nest");
      if (peek() == '}' || peek() == ',') {
        bool empty = out.size() == first;
        fail("group", open, pos_, empty ? "empty group" : "empty event in the group");
      }
      out.push_back(event(index));
      skip_ws();
      if (peek() == '}') break;
      if (at_end()) fail("group", open, open, "missing closing '}'");
      if (peek() != ',')
        fail("group", open, pos_, fmt::format("unexpected {} after an event in the group", describe_char(peek())));
      ++pos_;
    }
    ++pos_;  // '}'
    if (peek() == ':') {
      std::string mods = modifiers(open, "group");
      for (std::size_t i = first; i < out.size(); ++i) out[i].modifiers += mods;
    }
  }

  EventSpec event(int group_index) {
    std::size_t start = pos_;
    EventSpec spec;
    spec.group = group_index;
    std::string_view head = scan(is_name_char);
    if (head.empty())
      fail("event", start, pos_,
           fmt::format("unexpected {} where an event should be", at_end() ? "end" : describe_char(peek())));
    if (peek() == '/') {
      spec.pmu = std::string(head);
      spec.terms = pmu_terms(start);
      // perf writes modifiers straight after the closing '/'; event_spec.h's grammar has ':'.
      if (peek() == ':' || std::isalpha(static_cast<unsigned char>(peek()))) spec.modifiers = modifiers(start, "event");
    } else {
      std::string name(head);
      while (peek() == ':') {
        std::size_t colon = pos_++;
        std::string_view part = scan(is_name_char);
        if (part.empty()) fail("event", start, colon, "nothing after ':'");
        bool all_modifiers = std::all_of(part.begin(), part.end(), is_modifier_char);
        if (all_modifiers && peek() != ':') {
          spec.modifiers = std::string(part);
          break;
        }
        name += ':';  // a tracepoint "sched:sched_switch", not modifiers
        name += part;
      }
      spec.terms.push_back(Term{std::move(name), std::nullopt});
    }
    spec.text = std::string(text_.substr(start, pos_ - start));
    take_name_term(spec, start);
    return spec;
  }

  // The terms between '/' and '/'; pos_ is on the opening '/'.
  std::vector<Term> pmu_terms(std::size_t start) {
    std::size_t open = pos_++;
    std::vector<Term> terms;
    skip_ws();
    if (peek() == '/') {
      ++pos_;
      return terms;  // "msr//": no terms, perf accepts it
    }
    for (;;) {
      skip_ws();
      if (at_end()) fail("event", start, open, "missing closing '/'");
      terms.push_back(term(start, "event"));
      skip_ws();
      if (peek() == '/') break;
      if (at_end()) fail("event", start, open, "missing closing '/'");
      if (peek() != ',') fail("event", start, pos_, fmt::format("unexpected {} after a term", describe_char(peek())));
      std::size_t comma = pos_++;
      skip_ws();
      if (peek() == '/' || peek() == ',') fail("event", start, comma, "empty term after ','");
    }
    ++pos_;  // closing '/'
    return terms;
  }

  Term term(std::size_t start, std::string_view what) {
    std::size_t key_pos = pos_;
    std::string_view key = scan(is_key_char);
    if (key.empty()) {
      std::string_view reason = peek() == '=' ? "a term has no name before '='" : "";
      fail(what, start, key_pos,
           reason.empty() ? fmt::format("unexpected {} where a term should be", describe_char(peek()))
                          : std::string(reason));
    }
    Term t{std::string(key), std::nullopt};
    skip_ws();
    if (peek() != '=') return t;
    std::size_t eq = pos_++;
    skip_ws();
    if (peek() == '\'' || peek() == '"') {
      char quote = text_[pos_];
      std::size_t open = pos_++;
      std::size_t close = text_.find(quote, pos_);
      if (close == std::string_view::npos)
        fail(what, start, open, fmt::format("missing closing {} in the value of '{}'", quote, key));
      t.value = std::string(text_.substr(pos_, close - pos_));
      pos_ = close + 1;
      return t;
    }
    std::string_view value = scan(is_value_char);
    if (value.empty()) fail(what, start, eq, fmt::format("term '{}' has no value after '='", key));
    t.value = std::string(value);
    return t;
  }

  // ':mods' or (after a pmu event's '/') bare 'mods'; every letter must be a perf modifier.
  std::string modifiers(std::size_t start, std::string_view what) {
    std::size_t at = pos_;
    if (peek() == ':') ++pos_;
    std::string_view mods = scan(is_alnum);
    if (mods.empty()) fail(what, start, at, "no modifiers after ':'");
    for (std::size_t i = 0; i < mods.size(); ++i)
      if (!is_modifier_char(mods[i]))
        fail(what, start, pos_ - mods.size() + i,
             fmt::format("unknown modifier '{}' (perf has u k h p P G H S D I W e b)", mods[i]));
    return std::string(mods);
  }

  // name= is a label, not a config term: move it to EventSpec::name.
  void take_name_term(EventSpec& spec, std::size_t start) {
    auto is_name = [](const Term& t) { return t.key == "name"; };
    for (const auto& t : spec.terms) {
      if (!is_name(t)) continue;
      if (!t.value || t.value->empty()) fail("event", start, start, "term 'name' needs a value");
      spec.name = *t.value;  // the last name= wins, as in perf
    }
    std::erase_if(spec.terms, is_name);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int groups_ = 0;
};

}  // namespace

std::vector<EventSpec> parse_event_list(std::string_view text) {
  return Parser(text).event_list();
}

std::vector<Term> parse_terms(std::string_view text) {
  return Parser(text).bare_terms();
}

}  // namespace pmukit::syntax
