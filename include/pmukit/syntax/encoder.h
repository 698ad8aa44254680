// pmukit -- turns an EventSpec into (config, config1, config2) with a PmuDescription, by perf's
// rules, for every backend: the perf backend reads the description from sysfs, the direct backend
// from platform JSON, and both get the same words.
//
// The rules, in order:
//  1. A term that names an alias expands to the alias's terms: a bare term with no value that is
//     not a format ("cas_count_read"), or "event=<alias>" whose value is not a number. Alias
//     terms come first, then the user's own terms, so "cas_count_read,umask=0x1" counts umask
//     0x1. (perf 6.1 ORs a field written twice instead; no one means that.) Scale and unit come
//     from the alias; two aliases that both carry a unit or scale are an error, as in perf.
//  2. config=, config1=, config2= set the raw words (the last one written wins).
//  3. A format term sets its field; a bare format term means 1. Each value is spread over its
//     field's ranges, low bits first, and must fit the field's width. A field given twice takes
//     the later value. An alias term "x=?" must be given by the user.
//  4. The words are the raw words ORed with every field's bits, as perf ORs formats into the
//     config it set from config=.
// Terms that are neither aliases, formats nor config words are "unknown term 'foo' for pmu 'bar'".
// A bare-name event (pmu "", e.g. "cas_count_read") encodes as that alias of the PMU given.
#pragma once

#include "pmukit/syntax/event_spec.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit::syntax {

// Throws UsageError naming the event: "event 'bar/foo/': unknown term 'foo' for pmu 'bar'
// (valid terms: ...)", "event 'x': value 0x1ff too big for format 'event' (config:0-7, maximum
// 0xff)". Throws Error when the description itself is broken (an alias with unparsable terms).
EncodedEvent encode(const EventSpec& spec, const PmuDescription& pmu);

// The alias named `name` (exact, else ignoring case, as perf matches sysfs event names).
const EventAlias* find_alias(const PmuDescription& pmu, std::string_view name);

}  // namespace pmukit::syntax
