// pmu-raw -- rendering counts.
#include "report.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <system_error>

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

std::string thousands(std::uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {

std::string value_text(const Row& r) {
  if (r.scale == 1.0) return thousands(r.count);
  double v = static_cast<double>(r.count) * r.scale;
  double whole = std::floor(v);
  return fmt::format("{}.{:02d}", thousands(static_cast<std::uint64_t>(whole)),
                     static_cast<int>(std::lround((v - whole) * 100)) % 100);
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
}

void Reporter::print_rows(const std::string& time, const std::vector<Row>& rows,
                          const std::vector<MetricRow>& metrics) {
  const auto& agg = aggregate(rows);
  const bool box = o_.aggregation == Aggregation::PerBox;
  for (const auto& r : agg) {
    std::string group = group_of(r);
    std::string event = box ? event_for_box(r) : std::string(r.event);
    switch (o_.format) {
    case Format::Table: {
      std::string g = box || o_.aggregation == Aggregation::Merged ? "" : fmt::format("{:<4} ", group);
      std::string mux = pcnt(r) < 100.0 ? fmt::format("  ({:.2f}%)", pcnt(r)) : "";
      fmt::format_to(out(), "{}{}{:>20} {:<5} {}{}{}\n", time, g, not_counted(r) ? "<not counted>" : value_text(r),
                     r.unit, event, not_counted(r) ? "" : mux, r.lost ? "  <overflow: count unreliable>" : "");
      break;
    }
    case Format::Csv: {
      const std::string& s = o_.separator;
      std::string v = not_counted(r)   ? "<not counted>"
                      : r.scale == 1.0 ? std::to_string(r.count)
                                       : fmt::format("{:.2f}", static_cast<double>(r.count) * r.scale);
      fmt::format_to(out(), "{}{}{}{}{}{}{}{}{}{}{:.2f}{}{}\n", time.empty() ? "" : time + s,
                     group.empty() ? "" : group + s, v, s, r.unit, s, event, s, r.running_ns, s, pcnt(r), s, s);
      break;
    }
    case Format::Json: {
      nlohmann::ordered_json j;
      if (!time.empty()) j["interval"] = std::stod(time);
      if (!box && !group.empty()) j["socket"] = group;  // per socket, device or stack
      if (box) j["pmu"] = group;
      j["counter-value"] =
          not_counted(r) ? "<not counted>" : fmt::format("{:f}", static_cast<double>(r.count) * r.scale);
      j["unit"] = std::string(r.unit);
      j["event"] = event;
      j["event-runtime"] = r.running_ns;
      j["pcnt-running"] = std::round(pcnt(r) * 100) / 100;
      j["backend"] = std::string(r.backend);
      if (r.lost) j["lost"] = true;
      fmt::format_to(out(), "{}\n", j.dump());
      break;
    }
    }
  }
  for (const auto& m : metrics) breakdown() ? print_breakdown_metric(time, m) : print_metric(time, m);
}

void Reporter::print_metric(const std::string& time, const MetricRow& m) {
  std::string value = m.valid ? fmt::format("{:.3f}", m.value) : "nan";
  if (o_.format == Format::Json) {
    nlohmann::ordered_json j;
    if (!time.empty()) j["interval"] = std::stod(time);
    if (!m.group.empty()) j[o_.aggregation == Aggregation::PerBox ? "pmu" : "socket"] = m.group;
    j["metric-value"] = value;
    j["metric-unit"] = m.unit;
    j["metric"] = m.name;
    fmt::format_to(out(), "{}\n", j.dump());
  } else if (o_.format == Format::Csv) {
    const std::string& s = o_.separator;
    fmt::format_to(out(), "{}{}{}{}{}{}{}{}{}{}{}{}\n", time.empty() ? "" : time + s,
                   m.group.empty() ? "" : m.group + s, "", s, "", s, m.name, s, "", s, "", s + value + s + m.unit);
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
  std::string time = fmt::format("{:16.9f} ", t_s);
  if (o_.format != Format::Table) time = fmt::format("{:.9f}", t_s);
  print_rows(time, rows, metrics);
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
