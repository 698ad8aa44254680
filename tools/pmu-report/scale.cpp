// pmu-report -- axis ticks, unit scaling and number text.
#include "scale.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "pmukit/util/units.h"

namespace pmukit::tools {

namespace {

constexpr std::array<const char*, 6> kSiPrefix{"", "k", "M", "G", "T", "P"};

// The power of 1000 a number set whose largest magnitude is `max_abs` is shown in.
int si_power(double max_abs) {
  if (!(max_abs >= 1000)) return 0;
  return std::min(static_cast<int>(std::floor(std::log10(max_abs) / 3 + 1e-9)), 5);
}

}  // namespace

Axis nice_axis(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    // A constant: show it inside a range from zero (or around zero itself).
    if (hi > 0)
      lo = 0;
    else if (hi < 0)
      hi = 0;
    else
      hi = 1;
  }
  double raw = (hi - lo) / target;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / magnitude;
  double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * magnitude;
  Axis a;
  a.step = step;
  a.lo = std::floor(lo / step + 1e-9) * step;
  a.hi = std::ceil(hi / step - 1e-9) * step;
  if (a.hi <= a.lo) a.hi = a.lo + step;
  for (int i = 0; a.lo + i * step <= a.hi + step * 1e-6; ++i) a.ticks.push_back(a.lo + i * step);
  return a;
}

DisplayUnit display_unit(const std::string& unit, bool per_second, double max_abs) {
  // A rate of data in the input's own unit ("GB/s", a metric's) is data too, already per second.
  std::string_view amount = unit;
  bool rate = per_second;
  if (amount.size() > 2 && amount.substr(amount.size() - 2) == "/s") amount.remove_suffix(2), rate = true;
  const std::string per = rate ? "/s" : "";
  if (auto b = byte_unit(amount)) {
    static constexpr std::array<const char*, 6> decimal{"B", "kB", "MB", "GB", "TB", "PB"};
    static constexpr std::array<const char*, 6> power{"", "10³", "10⁶", "10⁹", "10¹²", "10¹⁵"};
    const double bytes = std::isfinite(max_abs) ? max_abs * b->bytes : 0;
    int p = 0;
    while (p < 5 && bytes >= std::pow(1000.0, p + 1)) ++p;
    const auto i = static_cast<std::size_t>(p);
    return {b->bytes / std::pow(1000.0, p), decimal[i] + per, false,
            p ? fmt::format("1 {} = {} bytes", decimal[i], power[i]) : ""};
  }
  if (unit.empty()) return {1, "counts" + per, true, ""};
  return {1, unit + (per_second ? "/s" : ""), true, ""};
}

bool is_data_unit(const std::string& unit) {
  std::string_view amount = unit;
  if (amount.size() > 2 && amount.substr(amount.size() - 2) == "/s") amount.remove_suffix(2);
  return byte_unit(amount).has_value();
}

std::string axis_title(const DisplayUnit& u) {
  return u.define.empty() ? u.label : fmt::format("{} ({})", u.label, u.define);
}

std::vector<std::string> tick_labels(const Axis& axis, bool si) {
  double max_abs = std::max(std::fabs(axis.lo), std::fabs(axis.hi));
  int p = si ? si_power(max_abs) : 0;
  double div = std::pow(1000.0, p);
  double step = axis.step / div;
  int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  std::vector<std::string> out;
  for (double t : axis.ticks) {
    double v = t / div;
    if (std::fabs(v) < step * 1e-6) v = 0;  // -0 and rounding noise at the origin
    out.push_back(fmt::format("{:.{}f}{}", v, decimals, v == 0 ? "" : kSiPrefix[static_cast<std::size_t>(p)]));
  }
  return out;
}

std::string format_value(double v, bool si) {
  if (std::isnan(v)) return "–";
  if (v == 0) return "0";
  int p = si ? si_power(std::fabs(v)) : 0;
  double x = v / std::pow(1000.0, p);
  int digits = static_cast<int>(std::floor(std::log10(std::fabs(x)) + 1e-9)) + 1;  // before the point
  int decimals = std::clamp(4 - digits, 0, 6);
  std::string text = fmt::format("{:.{}f}", x, decimals);
  if (std::fabs(x) >= 1000 && decimals == 0) {  // 12,345 for units without a prefix
    std::string digits_only = text.substr(text[0] == '-' ? 1 : 0), grouped;
    for (std::size_t i = 0; i < digits_only.size(); ++i) {
      if (i && (digits_only.size() - i) % 3 == 0) grouped += ',';
      grouped += digits_only[i];
    }
    text = (v < 0 ? "-" : "") + grouped;
  }
  return p ? fmt::format("{} {}", text, kSiPrefix[static_cast<std::size_t>(p)]) : text;
}

}  // namespace pmukit::tools
