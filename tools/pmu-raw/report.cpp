// pmu-raw -- rendering counts.
#include "report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <system_error>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"

namespace pmukit::tools {

namespace {

// Counts that could not be written are lost: an error (a full disk, -o /dev/full), not a success.
// A reader that went away (EPIPE) stays the quiet broken pipe `| head` expects.
void write_or_throw(std::FILE* out, const fmt::memory_buffer& buf) {
  if (std::fwrite(buf.data(), 1, buf.size(), out) == buf.size() && std::fflush(out) == 0 && !std::ferror(out)) return;
  int err = errno ? errno : EIO;
  std::clearerr(out);
  if (err == EPIPE) throw std::system_error(std::make_error_code(std::errc::broken_pipe));
  throw Error(fmt::format("writing the counts: {}", errno_text(err)));
}

}  // namespace

// A count's digits with perf's thousands separators, in place: "1,234,567" or "1,234.50".
const char* DigitText::set(std::uint64_t whole, int cents) {
  char digits[24];
  auto* end = fmt::format_to(digits, FMT_COMPILE("{}"), whole);
  const auto n = static_cast<std::size_t>(end - digits);
  std::size_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i && (n - i) % 3 == 0) text[at++] = ',';
    text[at++] = digits[i];
  }
  if (cents >= 0) at = static_cast<std::size_t>(fmt::format_to(text + at, FMT_COMPILE(".{:02d}"), cents) - text);
  text[at] = 0;
  return text;
}

namespace {

std::string_view value_text(const Row& r, DigitText& into) {
  if (r.scale == 1.0) return into.set(r.count, -1);
  double v = static_cast<double>(r.count) * r.scale;
  double whole = std::floor(v);
  return into.set(static_cast<std::uint64_t>(whole), static_cast<int>(std::lround((v - whole) * 100)) % 100);
}

void append(fmt::memory_buffer& buf, std::string_view text) {
  buf.append(text.data(), text.data() + text.size());
}

// A JSON string as nlohmann's dump() writes it: quotes, backslashes and control characters escaped.
void append_json_string(fmt::memory_buffer& buf, std::string_view text) {
  buf.push_back('"');
  if (std::none_of(text.begin(), text.end(),
                   [](char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; })) {
    append(buf, text);
    buf.push_back('"');
    return;
  }
  for (char c : text) {
    switch (c) {
    case '"':
      append(buf, "\\\"");
      break;
    case '\\':
      append(buf, "\\\\");
      break;
    case '\b':
      append(buf, "\\b");
      break;
    case '\f':
      append(buf, "\\f");
      break;
    case '\n':
      append(buf, "\\n");
      break;
    case '\r':
      append(buf, "\\r");
      break;
    case '\t':
      append(buf, "\\t");
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20)
        fmt::format_to(std::back_inserter(buf), FMT_COMPILE("\\u{:04x}"), static_cast<unsigned>(c));
      else
        buf.push_back(c);
    }
  }
  buf.push_back('"');
}

// A JSON number as nlohmann's dump() writes a double: the shortest text that reads back the same,
// with ".0" on whole numbers. Both switch to exponents outside [1e-4, 1e15), where the two differ
// in detail; such numbers (never an interval time or a percentage) go through nlohmann itself.
void append_json_number(fmt::memory_buffer& buf, double v) {
  if (!std::isfinite(v) || std::fabs(v) >= 1e15 || (v != 0 && std::fabs(v) < 1e-4)) {
    append(buf, nlohmann::json(v).dump());
    return;
  }
  const std::size_t start = buf.size();
  fmt::format_to(std::back_inserter(buf), FMT_COMPILE("{}"), v);
  if (std::string_view(buf.data() + start, buf.size() - start).find('.') == std::string_view::npos) append(buf, ".0");
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
std::string event_for_box(const Row& r) {
  std::string_view written_pmu = r.event.substr(0, r.event.find('/'));
  if (written_pmu.size() < r.event.size() && written_pmu != r.pmu)
    return fmt::format("{}{}", r.pmu, r.event.substr(written_pmu.size()));
  return std::string(r.event);
}

}  // namespace

Reporter::RowText Reporter::row_text(std::string group, std::string event) {
  fmt::memory_buffer g, e;
  append_json_string(g, group);
  append_json_string(e, event);
  return {std::move(group), std::move(event), fmt::to_string(g), fmt::to_string(e)};
}

Reporter::GroupKey Reporter::group_key(const Row& r) const {
  if (r.socket < 0) return {-1, {}};  // machine-wide rows (duration_time) belong to no socket or box
  switch (o_.aggregation) {
  case Aggregation::Merged:
    return {-1, {}};
  case Aggregation::PerSocket:
    return {r.socket, {}};
  case Aggregation::PerBox:
    return {-1, r.pmu};
  case Aggregation::PerDevice:
  case Aggregation::PerStack:
    return {r.socket, {}};  // a stack PMU has a unit per socket, and a device is on one of them
  }
  return {-1, {}};
}

std::string Reporter::group_of(const Row& r) const {
  auto [socket, pmu] = group_key(r);
  return socket >= 0 ? fmt::format("S{}", socket) : std::string(pmu);
}

// Rows arrive grouped by backend and unit, not by event, and in the same order every interval:
// where each row is summed (its (event, group) in -e order) is planned once, with a map, and
// reused while the rows' keys stay the same, so an interval sums into a reused vector.
const std::vector<Row>& Reporter::aggregate(const std::vector<Row>& rows) {
  if (!plan_matches(rows)) plan(rows);
  merged_.assign(plan_outputs_, Row{});
  std::vector<bool>& seen = plan_seen_;
  seen.assign(plan_outputs_, false);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    Row& a = merged_[plan_slot_[i]];
    if (!seen[plan_slot_[i]]) {
      seen[plan_slot_[i]] = true;
      a = r;
      continue;
    }
    a.count += r.count;
    a.raw += r.raw;
    a.lost = a.lost || r.lost;
    // As perf stat merges the counts of one event on several PMUs (stat-display.c, uncore aliases):
    // the scaled counts, the enabled times and the running times are each summed.
    a.enabled_ns += r.enabled_ns;
    a.running_ns += r.running_ns;
  }
  return merged_;
}

bool Reporter::plan_matches(const std::vector<Row>& rows) const {
  if (rows.size() != plan_keys_.size()) return false;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (plan_keys_[i].first != rows[i].spec || plan_keys_[i].second != group_key(rows[i])) return false;
  return true;
}

void Reporter::plan(const std::vector<Row>& rows) {
  plan_keys_.clear();
  std::map<std::pair<std::size_t, GroupKey>, std::size_t> position;
  for (const auto& r : rows) {
    plan_keys_.emplace_back(r.spec, group_key(r));
    position.emplace(plan_keys_.back(), 0);
  }
  std::size_t n = 0;
  for (auto& [key, at] : position) at = n++;
  plan_outputs_ = n;
  plan_slot_.clear();
  for (const auto& key : plan_keys_) plan_slot_.push_back(position.at(key));
  plan_text_.assign(n, {});
  const bool box = o_.aggregation == Aggregation::PerBox;
  for (std::size_t i = rows.size(); i-- > 0;)  // the first row of each slot names it
    plan_text_[plan_slot_[i]] = row_text(group_of(rows[i]), box ? event_for_box(rows[i]) : std::string(rows[i].event));
}

// One interval's lines are appended straight into buf_: compiled formats, the group and event
// text planned once (plan_text_), no string built per row, so an interval's output costs about
// what its digits do.
void Reporter::print_rows(std::string_view time, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics) {
  const auto& agg = aggregate(rows);
  json_time_.clear();
  if (o_.format == Format::Json && !time.empty()) append_json_number(json_time_, std::strtod(time.data(), nullptr));
  for (std::size_t i = 0; i < agg.size(); ++i) {
    switch (o_.format) {
    case Format::Table:
      print_table_row(time, agg[i], plan_text_[i]);
      break;
    case Format::Csv:
      print_csv_row(time, agg[i], plan_text_[i]);
      break;
    case Format::Json:
      print_json_row(agg[i], plan_text_[i]);
      break;
    }
  }
  for (const auto& m : metrics) breakdown() ? print_breakdown_metric(time, m) : print_metric(time, m);
}

void Reporter::print_table_row(std::string_view time, const Row& r, const RowText& text) {
  const bool box = o_.aggregation == Aggregation::PerBox;
  fmt::format_to(out(), FMT_COMPILE("{}"), time);
  if (!box && o_.aggregation != Aggregation::Merged) fmt::format_to(out(), FMT_COMPILE("{:<4} "), text.group);
  if (not_counted(r)) {
    fmt::format_to(out(), FMT_COMPILE("{:>20} {:<5} {}"), "<not counted>", r.unit, text.event);
  } else {
    DigitText value;
    fmt::format_to(out(), FMT_COMPILE("{:>20} {:<5} {}"), value_text(r, value), r.unit, text.event);
    if (pcnt(r) < 100.0) fmt::format_to(out(), FMT_COMPILE("  ({:.2f}%)"), pcnt(r));
  }
  if (r.lost) append(buf_, "  <overflow: count unreliable>");
  buf_.push_back('\n');
}

void Reporter::print_csv_row(std::string_view time, const Row& r, const RowText& text) {
  const std::string_view s = o_.separator;
  if (!time.empty()) append(buf_, time), append(buf_, s);
  if (!text.group.empty()) append(buf_, text.group), append(buf_, s);
  if (not_counted(r))
    append(buf_, "<not counted>");
  else if (r.scale == 1.0)
    fmt::format_to(out(), FMT_COMPILE("{}"), r.count);
  else
    fmt::format_to(out(), FMT_COMPILE("{:.2f}"), static_cast<double>(r.count) * r.scale);
  append(buf_, s), append(buf_, r.unit), append(buf_, s), append(buf_, text.event), append(buf_, s);
  fmt::format_to(out(), FMT_COMPILE("{}"), r.running_ns);
  append(buf_, s);
  if (r.running_ns == r.enabled_ns)  // the usual case, without formatting a double
    append(buf_, "100.00");
  else
    fmt::format_to(out(), FMT_COMPILE("{:.2f}"), pcnt(r));
  append(buf_, s), append(buf_, s);
  buf_.push_back('\n');
}

// The keys and value shapes of nlohmann::ordered_json's dump(), which this output used to be. The
// interval's time and each row's names are JSON text made once (json_time_, RowText).
void Reporter::print_json_row(const Row& r, const RowText& text) {
  const bool box = o_.aggregation == Aggregation::PerBox;
  buf_.push_back('{');
  bool first = true;
  auto key = [&](std::string_view quoted) {  // a literal key, quotes and colon included
    if (!first) buf_.push_back(',');
    first = false;
    append(buf_, quoted);
  };
  if (json_time_.size()) key("\"interval\":"), append(buf_, std::string_view(json_time_.data(), json_time_.size()));
  if (!box && !text.group.empty()) key("\"socket\":"), append(buf_, text.json_group);
  if (box) key("\"pmu\":"), append(buf_, text.json_group);
  key("\"counter-value\":");
  if (not_counted(r))
    append(buf_, "\"<not counted>\"");
  else if (r.scale == 1.0 && r.count < (1ull << 53))  // a whole count, exact in a double: its digits
    fmt::format_to(out(), FMT_COMPILE("\"{}.000000\""), r.count);
  else
    fmt::format_to(out(), FMT_COMPILE("\"{:f}\""), static_cast<double>(r.count) * r.scale);
  key("\"unit\":"), append_json_string(buf_, r.unit);
  key("\"event\":"), append(buf_, text.json_event);
  key("\"event-runtime\":"), fmt::format_to(out(), FMT_COMPILE("{}"), r.running_ns);
  key("\"pcnt-running\":");
  if (r.running_ns == r.enabled_ns)
    append(buf_, "100.0");
  else
    append_json_number(buf_, std::round(pcnt(r) * 100) / 100);
  key("\"backend\":"), append_json_string(buf_, r.backend);
  if (r.lost) key("\"lost\":"), append(buf_, "true");
  append(buf_, "}\n");
}

void Reporter::print_metric(std::string_view time, const MetricRow& m) {
  std::string value = m.valid ? fmt::format("{:.3f}", m.value) : "nan";
  if (o_.format == Format::Json) {
    nlohmann::ordered_json j;
    if (!time.empty()) j["interval"] = std::strtod(time.data(), nullptr);
    if (!m.group.empty()) j[o_.aggregation == Aggregation::PerBox ? "pmu" : "socket"] = m.group;
    j["metric-value"] = value;
    j["metric-unit"] = m.unit;
    j["metric"] = m.name;
    fmt::format_to(out(), "{}\n", j.dump());
  } else if (o_.format == Format::Csv) {
    const std::string& s = o_.separator;
    fmt::format_to(out(), "{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}\n", time, time.empty() ? "" : s, m.group,
                   m.group.empty() ? "" : s, "", s, "", s, m.name, s, "", s, "", s, value, s, m.unit, "");
  } else {
    std::string g = m.group.empty() ? "" : fmt::format("{:<4} ", m.group);
    fmt::format_to(out(), "{}{}{:>20} {:<5} {}\n", time, g, value, m.unit, m.name);
  }
}

namespace {

// A CSV field that holds the separator or a quote is quoted (RFC 4180): lspci's names may have commas.
std::string csv_field(const std::string& text, const std::string& sep) {
  if (text.find(sep) == std::string::npos && text.find('"') == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

// --per-device / --per-stack: the BDF (or stack PMU) first, the value, the metric with the PMU and
// parts it was counted on, then lspci's name of the device (or the stack); a device that could not
// be counted says why instead of a value.
void Reporter::print_breakdown_metric(std::string_view time, const MetricRow& m) {
  const bool counted = m.reason.empty();
  std::string value = !counted ? "-" : m.valid ? fmt::format("{:.3f}", m.value) : "nan";
  const char* key = o_.aggregation == Aggregation::PerDevice ? "device" : "pmu";
  if (o_.format == Format::Json) {
    nlohmann::ordered_json j;
    if (!time.empty()) j["interval"] = std::strtod(time.data(), nullptr);
    j[key] = o_.aggregation == Aggregation::PerDevice ? m.group : m.pmu;
    if (m.socket >= 0) j["socket"] = m.socket;
    j[o_.aggregation == Aggregation::PerDevice ? "device-name" : "stack"] = m.detail;
    j["metric-value"] = counted ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
    j["metric-unit"] = m.unit;
    j["metric"] = m.name;
    if (!counted) j["not-counted"] = m.reason;
    fmt::format_to(out(), "{}\n", j.dump());
  } else if (o_.format == Format::Csv) {
    const std::string& s = o_.separator;
    fmt::format_to(out(), "{}{}{}{}{}{}{}{}{}{}{}{}{}{}\n", time, time.empty() ? "" : s, m.group, s, s, s,
                   csv_field(m.name, s), s, s, s, value, s + m.unit + s, csv_field(m.detail, s),
                   counted ? "" : s + csv_field("not counted: " + m.reason, s));
  } else {
    std::string what = counted ? m.name : fmt::format("{} not counted: {}", m.name, m.reason);
    fmt::format_to(out(), "{}{:<15} {:>12} {:<8} {}  [{}]\n", time, m.group, value, m.unit, what, m.detail);
  }
}

void Reporter::interval(double t_s, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics) {
  if (o_.format == Format::Table && !header_done_) {
    fmt::format_to(out(), "#{:>15}{}{:>21} {:<5} {}\n", "time",
                   o_.aggregation == Aggregation::PerSocket || breakdown() ? " sock" : "", "counts", "unit", "events");
    header_done_ = true;
  }
  auto* end = o_.format == Format::Table ? fmt::format_to_n(time_, sizeof time_ - 1, FMT_COMPILE("{:16.9f} "), t_s).out
                                         : fmt::format_to_n(time_, sizeof time_ - 1, FMT_COMPILE("{:.9f}"), t_s).out;
  *end = 0;
  print_rows(std::string_view(time_, static_cast<std::size_t>(end - time_)), rows, metrics);
  write_or_throw(o_.out, buf_);
  buf_.clear();
}

void Reporter::totals(const std::vector<Row>& rows, const std::vector<MetricRow>& metrics, const std::string& target,
                      const std::vector<std::string>& notes, double elapsed_s) {
  if (o_.format == Format::Table) {
    fmt::format_to(out(), "\n Performance counter stats for {}:\n", target);
    for (const auto& n : notes) fmt::format_to(out(), "   ({})\n", n);
    fmt::format_to(out(), "\n");
  }
  print_rows("", rows, metrics);
  if (o_.format == Format::Table) fmt::format_to(out(), "\n{:>17.9f} seconds time elapsed\n\n", elapsed_s);
  write_or_throw(o_.out, buf_);
  buf_.clear();
}

}  // namespace pmukit::tools
