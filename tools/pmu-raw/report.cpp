// pmu-raw -- rendering counts.
#include "report.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
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

void thousands_to(Text& out, std::uint64_t v) {
  char digits[LineWriter::kDigits];
  const auto n = static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, v).ptr - digits);
  char grouped[LineWriter::kDigits + LineWriter::kDigits / 3];
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i && (n - i) % 3 == 0) grouped[k++] = ',';
    grouped[k++] = digits[i];
  }
  put(out, std::string_view(grouped, k));
}

// perf stat's names for an aggregate: S0 (socket), S0-D1 (die), N0 (NUMA node), or the PMU.
void Reporter::group_to(Text& out, const Row& r) const {
  const counting::Placement p = groups_.placement(r);
  if (p.cpu >= 0)  // perf stat -A: "CPU0", and in JSON "cpu" : "0"
    fmt::format_to(fmt::appender(out), "{}{}", o_.format == Format::Json ? "" : "CPU", p.cpu);
  else if (p.node >= 0)
    fmt::format_to(fmt::appender(out), "N{}", p.node);
  else if (p.die >= 0)
    fmt::format_to(fmt::appender(out), "S{}-D{}", p.socket, p.die);
  else if (p.socket >= 0)
    fmt::format_to(fmt::appender(out), "S{}", p.socket);
  else
    put(out, p.pmu);
}

std::string_view Reporter::group_key() const {
  switch (o_.aggregation) {
  case Aggregation::PerBox:
    return "pmu";
  case Aggregation::PerDie:
    return "die";
  case Aggregation::PerNode:
    return "node";
  case Aggregation::PerCpu:
    return "cpu";
  default:
    return "socket";
  }
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
    if (!m.group.empty()) j.string(group_key(), m.group);
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

void Reporter::interval(double t_s, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics,
                        bool as_before) {
  if (o_.format == Format::Table && !header_done_) {
    fmt::format_to(out(), "#{:>15}{}{:>21} {:<5} {}\n", "time",
                   o_.aggregation == Aggregation::PerSocket || breakdown() ? " sock"
                   : o_.aggregation == Aggregation::PerDie                 ? " die "
                   : o_.aggregation == Aggregation::PerNode                ? " node"
                                                                           : "",
                   "counts", "unit", "events");
    header_done_ = true;
  }
  char time[64];
  const auto written = o_.format == Format::Table ? fmt::format_to_n(time, sizeof time, "{:16.9f} ", t_s)
                                                  : fmt::format_to_n(time, sizeof time, "{:.9f}", t_s);
  print_rows(std::string_view(time, std::min(written.size, sizeof time)), rows, metrics, as_before);
  write_or_throw(o_.out, buf_);
  buf_.clear();
}

void Reporter::totals(const std::vector<Row>& rows, const std::vector<MetricRow>& metrics, const std::string& target,
                      const std::vector<std::string>& notes, double elapsed_s) {
  if (o_.format == Format::Table) {
    fmt::format_to(out(), "\n Performance counter stats for {}{}:\n", target,
                   runs_ ? fmt::format(" ({} runs)", runs_) : std::string());
    for (const auto& n : notes) fmt::format_to(out(), "   ({})\n", n);
    fmt::format_to(out(), "\n");
  }
  print_rows("", rows, metrics);
  if (o_.format == Format::Table && runs_) {  // perf stat -r's line: the mean, its standard error and spread
    fmt::format_to(out(), "\n{:>17.9f} +- {:.9f} seconds time elapsed", elapsed_s, elapsed_sd_);
    if (elapsed_pct_ != 0) fmt::format_to(out(), "  ( +-{:6.2f}% )", elapsed_pct_);
    fmt::format_to(out(), "\n\n");
  } else if (o_.format == Format::Table) {
    fmt::format_to(out(), "\n{:>17.9f} seconds time elapsed\n\n", elapsed_s);
  }
  write_or_throw(o_.out, buf_);
  buf_.clear();
}

}  // namespace pmukit::tools
