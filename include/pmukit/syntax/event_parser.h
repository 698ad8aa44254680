// pmukit -- parses a perf -e event list into EventSpecs (grammar in event_spec.h).
//
// What is accepted, and how it lands in EventSpec, follows perf 6.1 as checked on this project's
// machine:
//   uncore_imc_0/event=0x04,umask=0x03/   pmu "uncore_imc_0", terms event=0x04, umask=0x03
//   uncore_imc/cas_count_read,name=rd/    a bare alias term (value nullopt); name= goes to .name
//   msr/tsc/u   msr/tsc/:u                modifiers "u" (perf writes them right after the '/';
//                                          the ':' form is event_spec.h's and is accepted too)
//   {a/.../,b/.../}:u                     one group: .group = its index, and the group's
//                                          modifiers are appended to every member's
//   duration_time   cpu-clock:k           a bare name: pmu "", one term whose key is the name
//   sched:sched_switch                    a tracepoint: the ':' part is not a modifier set, so it
//                                          belongs to the name
//   name='x y'                            quoted values (either quote) may hold spaces and commas
// Whitespace around items and terms is skipped, as perf's lexer does. Numbers stay text here:
// the encoder parses them, because "event=cas_count_read" names an alias, not a number.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pmukit/syntax/event_spec.h"
#include "pmukit/util/error.h"

namespace pmukit::syntax {

// A malformed event list. The message names the event and the column:
//   "event 'uncore_imc/event=0x5': missing closing '/' (column 11)"
// column() is 1-based in the text given to the parser, so a tool can draw a caret under it.
class EventSyntaxError : public UsageError {
 public:
  EventSyntaxError(const std::string& message, std::size_t column) : UsageError(message), column_(column) {}
  std::size_t column() const { return column_; }

 private:
  std::size_t column_;
};

// Parses a whole -e argument. Throws EventSyntaxError.
std::vector<EventSpec> parse_event_list(std::string_view text);

// Parses a bare term list, the text of an events/ alias file: "event=0x04,umask=0x03\n".
// Throws EventSyntaxError naming the text ("terms 'event=': ...").
std::vector<Term> parse_terms(std::string_view text);

// perf's event modifier letters (u k h p P G H S D I W e b).
bool is_modifier_char(char c);

}  // namespace pmukit::syntax
