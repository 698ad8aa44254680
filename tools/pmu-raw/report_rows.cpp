// pmu-raw -- one line per counted event: the text that stays the same from interval to interval
// (group, unit, event, separators, JSON keys) is put together once when the rows are planned, so
// a line is its planned pieces around the numbers, written through one reserved span.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <initializer_list>

#include <fmt/format.h>

#include "pmukit/util/rounding.h"
#include "report.h"

namespace pmukit::tools {

namespace {

void value_text(Text& out, const Row& r) {
  if (r.scale == 1.0) return thousands_to(out, r.count);
  double v = static_cast<double>(r.count) * r.scale;
  double whole = std::floor(v);
  thousands_to(out, static_cast<std::uint64_t>(whole));
  fmt::format_to(fmt::appender(out), ".{:02d}", static_cast<int>(round_to_int64((v - whole) * 100)) % 100);
}

// Enabled but never on a counter (a multiplexed set whose turn did not come in the window): perf
// stat prints "<not counted>" rather than a count it has no time to scale from.
bool not_counted(const Row& r) {
  return r.enabled_ns && !r.running_ns;
}

double pcnt(const Row& r) {
  return r.enabled_ns ? 100.0 * static_cast<double>(r.running_ns) / static_cast<double>(r.enabled_ns) : 100.0;
}

// The event as perf --no-merge shows it: the unit's own PMU name in place of a type prefix.
void event_for_box(Text& out, const Row& r) {
  std::string_view written_pmu = r.event.substr(0, r.event.find('/'));
  if (written_pmu.size() < r.event.size() && written_pmu != r.pmu) {
    put(out, r.pmu);
    put(out, r.event.substr(written_pmu.size()));
  } else {
    put(out, r.event);
  }
}

// The interval column as a number: what the text of the time says (std::stod of it, as before).
double time_value(std::string_view time) {
  char text[64];
  const std::size_t n = std::min(time.size(), sizeof text - 1);
  std::copy_n(time.data(), n, text);
  text[n] = 0;
  return std::strtod(text, nullptr);
}

// Room for the numbers a line adds to its fixed pieces: two 64-bit integers, a percentage's
// "100.00" and a few separators.
constexpr std::size_t kNumbers = 2 * LineWriter::kDigits + 16;

}  // namespace

void Reporter::plan(const std::vector<Row>& rows) {
  const std::size_t n = groups_.lines();
  plan_head_.assign(n, {});
  plan_mid_.assign(n, {});
  plan_tail_.assign(n, {});
  plan_full_tail_.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) plan_text(i, rows[groups_.first_row(i)]);
  plan_usual();
}

// A usual line is what the slow path writes for it, with the text it adds around the count (the
// JSON value's quotes and ".000000", the table's newline) folded into the planned pieces.
void Reporter::plan_usual() {
  usual_text_.clear();
  usual_.assign(plan_head_.size(), {});
  usual_longest_ = 0;
  auto piece = [this](std::initializer_list<std::string_view> parts, std::uint32_t& at, std::uint32_t& n) {
    at = static_cast<std::uint32_t>(usual_text_.size());
    for (auto part : parts) usual_text_ += part;
    n = static_cast<std::uint32_t>(usual_text_.size() - at);
  };
  for (std::size_t i = 0; i < usual_.size(); ++i) {
    UsualLine& u = usual_[i];
    switch (o_.format) {
    case Format::Table:
      piece({plan_head_[i]}, u.pre, u.pre_n);
      piece({plan_mid_[i], "\n"}, u.post, u.post_n);
      piece({}, u.tail, u.tail_n);
      break;
    case Format::Csv:
      piece({plan_head_[i]}, u.pre, u.pre_n);
      piece({plan_mid_[i]}, u.post, u.post_n);
      piece({plan_full_tail_[i]}, u.tail, u.tail_n);
      break;
    case Format::Json:
      piece({plan_head_[i], "\"counter-value\":\""}, u.pre, u.pre_n);
      piece({".000000\"", plan_mid_[i]}, u.post, u.post_n);
      piece({plan_full_tail_[i], "}\n"}, u.tail, u.tail_n);
      break;
    }
    usual_longest_ = std::max<std::size_t>(usual_longest_, u.pre_n + u.post_n + u.tail_n);
  }
  // Usually every line ends the same (CSV's percentage and separators, JSON's backend): that tail
  // then goes with the run time's digits, one piece.
  usual_shared_tail_ = !usual_.empty();
  for (const auto& u : usual_) {
    const std::string_view first(usual_text_.data() + usual_[0].tail, usual_[0].tail_n);
    usual_shared_tail_ = usual_shared_tail_ && std::string_view(usual_text_.data() + u.tail, u.tail_n) == first;
  }
  usual_runtime_.clear();
  usual_text_.append(kSlack, '\0');
}

// A usual line from its planned pieces (the table's count with thousands separators, right-aligned
// in 20 columns, as value_text and print_table_row write it).
template <Format F>
char* Reporter::print_usual(char* to, const Row& r, std::size_t slot) {
  const UsualLine& u = usual_[slot];
  const char* text = usual_text_.data();
  to = copy_padded(to, view(usual_lead_));
  to = copy_padded(to, {text + u.pre, u.pre_n});
  if constexpr (F == Format::Table) {
    static constexpr char kSpaces[kSlack + 1] = "                                ";
    char digits[LineWriter::kDigits];
    const auto n = static_cast<std::size_t>(put_decimal(digits, r.count) - digits);
    const std::size_t grouped = n + (n - 1) / 3;
    if (grouped < 20) to = copy_padded(to, {kSpaces, 20 - grouped});
    std::size_t first = n - 3 * ((n - 1) / 3);
    for (std::size_t i = 0; i < first; ++i) *to++ = digits[i];
    for (std::size_t i = first; i < n; i += 3) {
      *to++ = ',';
      std::memcpy(to, digits + i, 3);
      to += 3;
    }
    return copy_padded(to, {text + u.post, u.post_n});
  } else {
    to = put_decimal(to, r.count);
    to = copy_padded(to, {text + u.post, u.post_n});
    if (r.running_ns != usual_runtime_ns_ || usual_runtime_.size() == 0) {
      usual_runtime_ns_ = r.running_ns;
      usual_runtime_.clear();
      put(usual_runtime_, r.running_ns);
      if (usual_shared_tail_) put(usual_runtime_, {text + u.tail, u.tail_n});
      usual_runtime_.reserve(usual_runtime_.size() + kSlack);
    }
    to = copy_padded(to, view(usual_runtime_));
    return usual_shared_tail_ ? to : copy_padded(to, {text + u.tail, u.tail_n});
  }
}

// Usual lines written straight into the interval's buffer, reserved once for all of them; any
// other goes through print_other().
template <Format F>
void Reporter::print_lines(const std::vector<const Row*>& merged) {
  // Room for every line as a usual one (a number each for the count and the run time, the
  // table's grouping and padding, and the copies' overrun).
  const std::size_t room = usual_lead_.size() + usual_longest_ + 3 * LineWriter::kDigits + 20 + kSlack;
  buf_.reserve(buf_.size() + merged.size() * room + kSlack);
  char* to = buf_.data() + buf_.size();
  for (std::size_t i = 0; i < merged.size(); ++i) {
    const Row& r = *merged[i];
    if (usual<F>(r) && spread_.empty()) {
      to = print_usual<F>(to, r, i);
      continue;
    }
    buf_.resize(static_cast<std::size_t>(to - buf_.data()));
    print_other(r, i);
    // print_other reserved for itself: the lines after it get their room back.
    buf_.reserve(buf_.size() + (merged.size() - i) * room + kSlack);
    to = buf_.data() + buf_.size();
  }
  buf_.resize(static_cast<std::size_t>(to - buf_.data()));
}

// The pieces of a line around its numbers, in each format's order of fields.
void Reporter::plan_text(std::size_t slot, const Row& r) {
  Text group, event, head, mid, tail, full_tail;
  group_to(group, r);
  if (o_.aggregation == Aggregation::PerBox)
    event_for_box(event, r);
  else
    put(event, r.event);
  const std::string_view s = o_.separator;
  // perf stat --per-socket, --per-die and --per-node say how many they summed into a line (its
  // "aggregate-number": CPUs there, units here) after its group, in CSV and JSON.
  const counting::Grouping g = groups_.grouping();
  const bool aggregated = group.size() && (g == counting::Grouping::PerSocket || g == counting::Grouping::PerDie ||
                                           g == counting::Grouping::PerNode);
  switch (o_.format) {
  case Format::Table:  // time [group] value unit event [(percent%)]
    if (o_.aggregation != Aggregation::PerBox && o_.aggregation != Aggregation::Merged) {
      // perf stat -A's "CPU%-7d ", --per-socket's "S0   ".
      pad(head, view(group), o_.aggregation == Aggregation::PerCpu ? 10 : 4, false);
      head.push_back(' ');
    }
    mid.push_back(' ');
    pad(mid, r.unit, 5, false);
    mid.push_back(' ');
    put(mid, view(event));
    break;
  case Format::Csv:  // time, [group, [aggregate-number,]] value, unit, event, run time, percent,,
    if (group.size()) put(head, view(group)), put(head, s);
    if (aggregated) put(head, groups_.members(slot)), put(head, s);
    for (std::string_view field : {std::string_view(), r.unit, view(event)}) put(mid, field), put(mid, s);
    put(tail, s), put(tail, s), put(tail, "\n");
    put(full_tail, s), put(full_tail, "100.00"), put(full_tail, view(tail));
    break;
  case Format::Json:  // members in perf stat -j's order, as nlohmann::json::dump writes them
    if (o_.aggregation == Aggregation::PerBox || group.size()) {
      put(head, "\""), put(head, group_key()), put(head, "\":");
      json_string(head, view(group));
      head.push_back(',');
    }
    if (aggregated) put(head, "\"aggregate-number\":"), put(head, groups_.members(slot)), head.push_back(',');
    put(mid, ",\"unit\":");
    json_string(mid, r.unit);
    put(mid, ",\"event\":");
    json_string(mid, view(event));
    // -r: the spread goes between the event and its run time (print_json_row), as perf stat -j's "variance".
    if (!runs_) put(mid, ",\"event-runtime\":");
    put(tail, ",\"backend\":");
    json_string(tail, r.backend);
    if (auto in = o_.metric_inputs.find(r.spec); in != o_.metric_inputs.end()) {
      put(tail, ",\"metric-input\":[");
      for (std::size_t i = 0; i < in->second.size(); ++i) put(tail, i ? "," : ""), json_string(tail, in->second[i]);
      put(tail, "]");
    }
    put(full_tail, ",\"pcnt-running\":100.0"), put(full_tail, view(tail));
    break;
  }
  plan_head_[slot] = fmt::to_string(head);
  plan_mid_[slot] = fmt::to_string(mid);
  plan_tail_[slot] = fmt::to_string(tail);
  plan_full_tail_[slot] = fmt::to_string(full_tail);
}

void Reporter::print_rows(std::string_view time, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics,
                          bool as_before) {
  interval_.clear();
  if (o_.format == Format::Json && !time.empty()) json_number(interval_, time_value(time));
  lead_.clear();
  if (!time.empty()) {
    if (o_.format == Format::Json) put(lead_, "\"interval\":");
    put(lead_, o_.format == Format::Json ? view(interval_) : time);
    if (o_.format != Format::Table) put(lead_, o_.format == Format::Json ? std::string_view(",") : o_.separator);
  }
  if (o_.metric_only) {  // --metric-only: the metrics alone, not the events they are computed from
    for (const auto& m : metrics) breakdown() ? print_breakdown_metric(std::string(time), m) : print_metric(time, m);
    return;
  }
  const auto& merged = groups_.aggregate(rows, as_before);
  if (groups_.replanned()) plan(rows);
  usual_lead_.clear();
  if (o_.format == Format::Json) usual_lead_.push_back('{');
  put(usual_lead_, view(lead_));
  usual_lead_.reserve(usual_lead_.size() + kSlack);
  switch (o_.format) {
  case Format::Table:
    print_lines<Format::Table>(merged);
    break;
  case Format::Csv:
    print_lines<Format::Csv>(merged);
    break;
  case Format::Json:
    print_lines<Format::Json>(merged);
    break;
  }
  for (const auto& m : metrics) breakdown() ? print_breakdown_metric(std::string(time), m) : print_metric(time, m);
}

void Reporter::print_other(const Row& r, std::size_t i) {
  value_.clear();
  pct_.clear();
  switch (o_.format) {
  case Format::Table:
    print_table_row(r, plan_head_[i], plan_mid_[i], i);
    break;
  case Format::Csv:
    print_csv_row(r, plan_head_[i], plan_mid_[i], full(r) ? plan_full_tail_[i] : plan_tail_[i], i);
    break;
  case Format::Json:
    print_json_row(r, plan_head_[i], plan_mid_[i], full(r) ? plan_full_tail_[i] : plan_tail_[i], i);
    break;
  }
}

void Reporter::print_table_row(const Row& r, std::string_view head, std::string_view mid, std::size_t line_no) {
  const bool counted = !not_counted(r);
  if (counted)
    value_text(value_, r);
  else
    put(value_, "<not counted>");
  const bool partial = counted && pcnt(r) < 100.0;
  if (partial) put(pct_, "  ("), percent(pct_, pcnt(r)), put(pct_, "%)");
  // -r: the spread over the runs, where there is one, as perf stat prints it ("  ( +-  1.23% )").
  if (line_no < spread_.size() && spread_[line_no] != 0)
    fmt::format_to(fmt::appender(pct_), "  ( +-{:6.2f}% )", spread_[line_no]);
  constexpr std::string_view kLost = "  <overflow: count unreliable>";
  constexpr std::size_t kValueColumns = 20;
  LineWriter line(buf_, lead_.size() + head.size() + kValueColumns + value_.size() + mid.size() + pct_.size() +
                            kLost.size() + 1);
  line << view(lead_) << head;
  // The value right-aligned in 20 columns: it is ASCII (digits, commas, a point), so a column is a byte.
  line.spaces(value_.size() < kValueColumns ? kValueColumns - value_.size() : 0);
  line << view(value_) << mid << view(pct_);
  if (r.lost) line << kLost;
  line << '\n';
}

void Reporter::print_csv_row(const Row& r, std::string_view head, std::string_view mid, std::string_view tail,
                             std::size_t line_no) {
  const bool whole = !not_counted(r) && r.scale == 1.0;
  if (not_counted(r))
    put(value_, "<not counted>");
  else if (!whole)
    fmt::format_to(fmt::appender(value_), "{:.2f}", static_cast<double>(r.count) * r.scale);
  // The usual case, the whole window on the counter: "100.00" is in the planned tail.
  const std::string_view s = o_.separator;
  if (!full(r)) put(pct_, s), percent(pct_, pcnt(r));
  // -r: the spread over the runs after the event, as perf stat -x prints its variance ("1.44%,").
  Text spread;
  if (runs_) fmt::format_to(fmt::appender(spread), "{:.2f}%{}", spread_at(line_no), s);
  LineWriter line(buf_, lead_.size() + head.size() + value_.size() + mid.size() + spread.size() + pct_.size() +
                            tail.size() + s.size() + kNumbers);
  line << view(lead_) << head;
  if (whole)
    line << r.count;
  else
    line << view(value_);
  line << mid << view(spread);
  runtime(line, r.running_ns);
  line << view(pct_) << tail;
}

void Reporter::print_json_row(const Row& r, std::string_view head, std::string_view mid, std::string_view tail,
                              std::size_t line_no) {
  // The value as a JSON string: digits (a whole count, exact in a double, as "{:f}" writes it
  // without running fmt's Dragon4 on a large double), or "<not counted>": nothing to escape.
  const bool whole = !not_counted(r) && r.scale == 1.0 && r.count < (1ull << 53);
  if (not_counted(r))
    put(value_, "<not counted>");
  else if (!whole)
    fmt::format_to(fmt::appender(value_), "{:f}", static_cast<double>(r.count) * r.scale);
  if (!full(r)) {  // the usual case, "100.0", is in the planned tail
    put(pct_, ",\"pcnt-running\":");
    json_number(pct_, round_half_away(pcnt(r) * 100) / 100);
  }
  // -r: the spread over the runs, perf stat -j's "variance" (a percentage), before the run time.
  Text spread;
  if (runs_) {
    put(spread, ",\"variance\":");
    json_number(spread, round_half_away(spread_at(line_no) * 100) / 100);
    put(spread, ",\"event-runtime\":");
  }
  constexpr std::string_view kLost = ",\"lost\":true";
  LineWriter line(buf_, lead_.size() + head.size() + value_.size() + mid.size() + spread.size() + pct_.size() +
                            tail.size() + kLost.size() + kNumbers + 64);
  line << '{' << view(lead_) << head << "\"counter-value\":\"";
  if (whole)
    line << r.count << ".000000";
  else
    line << view(value_);
  line << '"' << mid << view(spread);
  runtime(line, r.running_ns);
  line << view(pct_) << tail;
  if (r.lost) line << kLost;
  line << "}\n";
}

}  // namespace pmukit::tools
