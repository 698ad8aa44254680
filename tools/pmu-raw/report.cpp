// pmu-raw -- rendering counts.
#include "report.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"

namespace pmukit::tools {

namespace {

// The interval's text in one write(2) where the stream has a descriptor (whatever the stdio
// buffer's size: fwrite splits a block larger than it), after anything the stream still holds.
bool write_all(std::FILE* out, const fmt::memory_buffer& buf) {
  const int fd = ::fileno(out);
  if (fd < 0) return std::fwrite(buf.data(), 1, buf.size(), out) == buf.size() && std::fflush(out) == 0;
  if (std::fflush(out) != 0) return false;
  for (std::size_t done = 0; done < buf.size();) {
    const ssize_t n = ::write(fd, buf.data() + done, buf.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Counts that could not be written are lost: an error (a full disk, -o /dev/full), not a success.
// A reader that went away (EPIPE) stays the quiet broken pipe `| head` expects.
void write_or_throw(std::FILE* out, const fmt::memory_buffer& buf) {
  errno = 0;
  if (write_all(out, buf) && !std::ferror(out)) return;
  int err = errno ? errno : EIO;
  std::clearerr(out);
  if (err == EPIPE) throw std::system_error(std::make_error_code(std::errc::broken_pipe));
  throw Error(fmt::format("writing the counts: {}", errno_text(err)));
}

}  // namespace

std::string thousands(std::uint64_t v) {
  Text t;
  thousands_to(t, v);
  return std::string(t.data(), t.size());
}

void thousands_to(Text& out, std::uint64_t v) {
  char digits[24];
  const auto n = static_cast<std::size_t>(fmt::format_to(digits, "{}", v) - digits);
  for (std::size_t i = 0; i < n; ++i) {
    if (i && (n - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
}

namespace {

void value_text(Text& out, const Row& r) {
  if (r.scale == 1.0) return thousands_to(out, r.count);
  double v = static_cast<double>(r.count) * r.scale;
  double whole = std::floor(v);
  thousands_to(out, static_cast<std::uint64_t>(whole));
  fmt::format_to(fmt::appender(out), ".{:02d}", static_cast<int>(std::lround((v - whole) * 100)) % 100);
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

}  // namespace

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
  Text t;
  group_to(t, r);
  return std::string(t.data(), t.size());
}

void Reporter::group_to(Text& out, const Row& r) const {
  auto [socket, pmu] = group_key(r);
  if (socket >= 0)
    fmt::format_to(fmt::appender(out), "S{}", socket);
  else
    put(out, pmu);
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
  // Each merged row's group and event text, from the first row summed into it: the same every
  // interval while the plan holds, so made here rather than per row.
  plan_group_.assign(n, {});
  plan_event_.assign(n, {});
  plan_group_json_.assign(n, {});
  plan_event_json_.assign(n, {});
  for (std::size_t i = rows.size(); i-- > 0;) {
    Text group, event;
    group_to(group, rows[i]);
    if (o_.aggregation == Aggregation::PerBox)
      event_for_box(event, rows[i]);
    else
      put(event, rows[i].event);
    plan_group_[plan_slot_[i]] = fmt::to_string(group);
    plan_event_[plan_slot_[i]] = fmt::to_string(event);
    if (o_.format != Format::Json) continue;
    Text quoted;
    json_string(quoted, view(group));
    plan_group_json_[plan_slot_[i]] = fmt::to_string(quoted);
    quoted.clear();
    json_string(quoted, view(event));
    plan_event_json_[plan_slot_[i]] = fmt::to_string(quoted);
  }
}

void Reporter::print_rows(std::string_view time, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics) {
  interval_.clear();
  if (o_.format == Format::Json && !time.empty()) json_number(interval_, time_value(time));
  const auto& merged = aggregate(rows);
  for (std::size_t i = 0; i < merged.size(); ++i) {
    const Row& r = merged[i];
    group_ = plan_group_[i];
    event_ = plan_event_[i];
    group_json_ = plan_group_json_[i];
    event_json_ = plan_event_json_[i];
    value_.clear();
    switch (o_.format) {
    case Format::Table:
      print_table_row(time, r);
      break;
    case Format::Csv:
      print_csv_row(time, r);
      break;
    case Format::Json:
      print_json_row(time, r);
      break;
    }
  }
  for (const auto& m : metrics) breakdown() ? print_breakdown_metric(std::string(time), m) : print_metric(time, m);
}

void Reporter::print_table_row(std::string_view time, const Row& r) {
  const bool counted = !not_counted(r);
  if (counted)
    value_text(value_, r);
  else
    put(value_, "<not counted>");
  put(buf_, time);
  if (o_.aggregation != Aggregation::PerBox && o_.aggregation != Aggregation::Merged) {
    pad(buf_, group_, 4, false);
    buf_.push_back(' ');
  }
  pad(buf_, view(value_), 20, true);
  buf_.push_back(' ');
  pad(buf_, r.unit, 5, false);
  buf_.push_back(' ');
  put(buf_, event_);
  if (counted && pcnt(r) < 100.0) {
    put(buf_, "  (");
    percent(buf_, pcnt(r));
    put(buf_, "%)");
  }
  if (r.lost) put(buf_, "  <overflow: count unreliable>");
  buf_.push_back('\n');
}

void Reporter::print_csv_row(std::string_view time, const Row& r) {
  const std::string_view s = o_.separator;
  if (not_counted(r))
    put(value_, "<not counted>");
  else if (r.scale == 1.0)
    put(value_, r.count);
  else
    fmt::format_to(fmt::appender(value_), "{:.2f}", static_cast<double>(r.count) * r.scale);
  for (std::string_view field : {time, group_})
    if (!field.empty()) put(buf_, field), put(buf_, s);
  for (std::string_view field : {view(value_), r.unit, event_}) put(buf_, field), put(buf_, s);
  put(buf_, r.running_ns);
  put(buf_, s);
  percent(buf_, pcnt(r));
  put(buf_, s);
  put(buf_, s);
  buf_.push_back('\n');
}

void Reporter::print_json_row(std::string_view time, const Row& r) {
  const bool box = o_.aggregation == Aggregation::PerBox;
  if (not_counted(r)) {
    put(value_, "<not counted>");
  } else if (r.scale == 1.0 && r.count < (1ull << 53)) {
    // A whole count, exact in a double: its digits ("{:f}" of a large double runs fmt's Dragon4).
    put(value_, r.count);
    put(value_, ".000000");
  } else {
    fmt::format_to(fmt::appender(value_), "{:f}", static_cast<double>(r.count) * r.scale);
  }
  JsonLine j(buf_);
  if (!time.empty()) j.raw("interval", view(interval_));
  if (!box && group_.size()) j.raw("socket", group_json_);  // per socket, device or stack
  if (box) j.raw("pmu", group_json_);
  j.string("counter-value", view(value_));
  j.string("unit", r.unit);
  j.raw("event", event_json_);
  j.integer("event-runtime", r.running_ns);
  if (r.running_ns == r.enabled_ns)
    j.raw("pcnt-running", "100.0");  // the usual case, without formatting a double
  else
    j.number("pcnt-running", std::round(pcnt(r) * 100) / 100);
  j.string("backend", r.backend);
  if (r.lost) j.boolean("lost", true);
}

void Reporter::print_metric(std::string_view time, const MetricRow& m) {
  value_.clear();
  if (m.valid)
    fmt::format_to(fmt::appender(value_), "{:.3f}", m.value);
  else
    put(value_, "nan");
  if (o_.format == Format::Json) {
    JsonLine j(buf_);
    if (!time.empty()) j.raw("interval", view(interval_));
    if (!m.group.empty()) j.string(o_.aggregation == Aggregation::PerBox ? "pmu" : "socket", m.group);
    j.string("metric-value", view(value_));
    j.string("metric-unit", m.unit);
    j.string("metric", m.name);
  } else if (o_.format == Format::Csv) {
    const std::string_view s = o_.separator;
    if (!time.empty()) fmt::format_to(out(), "{}{}", time, s);
    if (!m.group.empty()) fmt::format_to(out(), "{}{}", m.group, s);
    fmt::format_to(out(), "{}{}{}{}{}{}{}{}{}\n", s, s, m.name, s, s, s, view(value_), s, m.unit);
  } else {
    put(buf_, time);
    if (!m.group.empty()) fmt::format_to(out(), "{:<4} ", m.group);
    fmt::format_to(out(), "{:>20} {:<5} {}\n", view(value_), m.unit, m.name);
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
void Reporter::print_breakdown_metric(const std::string& time, const MetricRow& m) {
  const bool counted = m.reason.empty();
  std::string value = !counted ? "-" : m.valid ? fmt::format("{:.3f}", m.value) : "nan";
  const char* key = o_.aggregation == Aggregation::PerDevice ? "device" : "pmu";
  if (o_.format == Format::Json) {
    nlohmann::ordered_json j;
    if (!time.empty()) j["interval"] = std::stod(time);
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
    fmt::format_to(out(), "{}{}{}{}{}{}{}{}{}{}{}{}{}\n", time.empty() ? "" : time + s, m.group, s, s, s,
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
  char time[64];
  const auto written = o_.format == Format::Table ? fmt::format_to_n(time, sizeof time, "{:16.9f} ", t_s)
                                                  : fmt::format_to_n(time, sizeof time, "{:.9f}", t_s);
  print_rows(std::string_view(time, std::min(written.size, sizeof time)), rows, metrics);
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
