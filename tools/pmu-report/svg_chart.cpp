// pmu-report -- SVG charts. Every element carries its own presentation attributes, so a chart cut
// out of the page (or saved from the browser) still looks the same.
#include "svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "overlap.h"

namespace pmukit::tools {

namespace {

constexpr double kWidth = 960, kLeft = 84, kRight = 28, kTop = 56, kPlotHeight = 240, kBottom = 50;
constexpr double kLegendRow = 18, kBarRow = 26;
constexpr double kCharWidth = 7.2;  // a 12 px sans-serif character, for laying out labels
constexpr std::size_t kMarkerLimit = 60;
constexpr double kDash = 8;          // each colour's share of a line series are drawn over each other on
constexpr double kSamePixels = 1.0;  // lines closer than this (2 px wide) are drawn over each other

struct Frame {
  double x0, x1, y0, y1;  // plot area: left, right, top, bottom
};

std::string n1(double v) {
  return fmt::format("{:.1f}", v);
}

std::string label_of(const RecordedSeries& s) {
  return s.label.empty() ? "all units" : s.label;
}

struct Legend {
  std::size_t cols = 0, rows = 0;
  double col_width = 0, height = 0;
};

// What the legend says of a series: its name, and which series it is drawn over.
std::vector<std::string> legend_labels(const RecordedChart& c, const std::vector<Overlap>& over) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    std::string label = label_of(c.series[i]);
    if (i < over.size() && over[i].with != Overlap::kNone)
      label += over[i].whole ? fmt::format(" (same values as {})", label_of(c.series[over[i].with]))
                             : fmt::format(" (meets {} in places)", label_of(c.series[over[i].with]));
    out.push_back(std::move(label));
  }
  return out;
}

Legend legend_layout(const RecordedChart& c, const std::vector<std::string>& labels) {
  if (c.series.size() == 1 && c.series[0].label.empty()) return {};  // one merged series needs no key
  std::size_t longest = 0;
  for (const auto& l : labels) longest = std::max(longest, l.size());
  const double avail = kWidth - kLeft - kRight;
  Legend l;
  l.col_width = std::clamp(40 + kCharWidth * static_cast<double>(longest), 110.0, avail);
  l.cols = std::min(c.series.size(), std::max<std::size_t>(1, static_cast<std::size_t>(avail / l.col_width)));
  l.rows = (c.series.size() + l.cols - 1) / l.cols;
  l.height = static_cast<double>(l.rows) * kLegendRow + 8;
  return l;
}

// A line's own dash (after ten series) or, drawn over others, its share of their line.
std::string dash_attr(const SeriesStyle& st, const Overlap& o = {}) {
  const Dashes d = overlap_dashes(o, kDash);
  if (!d.array.empty()) return fmt::format(" stroke-dasharray=\"{}\" stroke-dashoffset=\"{}\"", d.array, d.offset);
  return st.dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", st.dash);
}

std::string legend_svg(const std::vector<std::string>& labels, const std::vector<Overlap>& over, const Legend& l,
                       double top) {
  std::string out = "<g class=\"legend\" fill=\"#222\">";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    double x = kLeft + static_cast<double>(i % l.cols) * l.col_width;
    double y = top + static_cast<double>(i / l.cols) * kLegendRow + 12;
    auto st = series_style(i);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"{}/>"
                       "<text x=\"{}\" y=\"{}\">{}</text>",
                       n1(x), n1(y - 4), n1(x + 26), n1(y - 4), st.color, dash_attr(st, over[i]), n1(x + 32), n1(y),
                       escape(labels[i]));
  }
  return out + "</g>";
}

double chart_max_abs(const RecordedChart& c) {
  double m = 0;
  for (const auto& s : c.series)
    for (const auto& p : s.samples)
      if (std::isfinite(p.y)) m = std::max(m, std::fabs(p.y));
  return m;
}

std::pair<double, double> chart_range(const RecordedChart& c, double factor) {
  double lo = 0, hi = 0;  // counts and rates are shown from zero: the honest baseline
  for (const auto& s : c.series)
    for (const auto& p : s.samples)
      if (std::isfinite(p.y)) lo = std::min(lo, p.y * factor), hi = std::max(hi, p.y * factor);
  return {lo, hi};
}

std::string header_svg(const RecordedChart& c, const DisplayUnit& u, const RecordedRun& run, const std::string& id) {
  std::string what = c.kind == RecordKind::Metric ? "metric"
                     : run.intervals              ? "event, count per second of each interval"
                                                  : "event, count over the run";
  std::string series = c.series.size() == 1 ? "" : fmt::format(", {} series", c.series.size());
  return fmt::format("<title id=\"{}\">{} ({})</title>"
                     "<text x=\"12\" y=\"24\" font-size=\"16\" font-weight=\"bold\" fill=\"#111\">{}</text>"
                     "<text x=\"12\" y=\"43\" fill=\"#555\">{} in {}{}</text>",
                     id, escape(c.name), escape(u.label), escape(c.name), what, escape(u.label), series);
}

double to_x(const Frame& f, const Axis& a, double v) {
  return f.x0 + (v - a.lo) / (a.hi - a.lo) * (f.x1 - f.x0);
}
double to_y(const Frame& f, const Axis& a, double v) {
  return f.y1 - (v - a.lo) / (a.hi - a.lo) * (f.y1 - f.y0);
}

// Horizontal value axis (bars) or vertical one (time series), with grid lines across the frame.
std::string value_axis_svg(const Frame& f, const Axis& a, bool si, const std::string& title, bool vertical) {
  auto labels = tick_labels(a, si);
  std::string out = "<g class=\"axis\" fill=\"#444\">";
  for (std::size_t i = 0; i < a.ticks.size(); ++i) {
    if (vertical) {
      double y = to_y(f, a, a.ticks[i]);
      out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e3e3e3\"/>"
                         "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                         n1(f.x0), n1(y), n1(f.x1), n1(y), n1(f.x0 - 7), n1(y + 4), labels[i]);
    } else {
      double x = to_x(f, a, a.ticks[i]);
      out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e3e3e3\"/>"
                         "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                         n1(x), n1(f.y0), n1(x), n1(f.y1), n1(x), n1(f.y1 + 17), labels[i]);
    }
  }
  if (vertical)
    out += fmt::format("<text transform=\"rotate(-90)\" x=\"{}\" y=\"18\" text-anchor=\"middle\">{}</text>",
                       n1(-(f.y0 + f.y1) / 2), escape(title));
  else
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", n1((f.x0 + f.x1) / 2), n1(f.y1 + 38),
                       escape(title));
  return out + "</g>";
}

std::string time_axis_svg(const Frame& f, const Axis& a) {
  auto labels = tick_labels(a, false);
  std::string out = "<g class=\"axis\" fill=\"#444\">";
  for (std::size_t i = 0; i < a.ticks.size(); ++i) {
    double x = to_x(f, a, a.ticks[i]);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\"/>"
                       "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       n1(x), n1(f.y1), n1(x), n1(f.y1 + 5), n1(x), n1(f.y1 + 19), labels[i]);
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#444\"/>"
                     "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{1}\" stroke=\"#444\"/>"
                     "<text x=\"{4}\" y=\"{5}\" text-anchor=\"middle\">time since the start of counting (s)</text>",
                     n1(f.x0), n1(f.y1), n1(f.x1), n1(f.y0), n1((f.x0 + f.x1) / 2), n1(f.y1 + 40));
  return out + "</g>";
}

struct Point {
  double x, y;  // screen coordinates; y NaN: a gap
  const RecordedSample* sample;
};

// More samples than pixel columns: keep each column's lowest and highest point (in time order),
// so that a spike of one interval still shows.
std::vector<Point> decimate(std::vector<Point> pts, double width) {
  if (pts.size() <= static_cast<std::size_t>(2 * width)) return pts;
  std::vector<Point> out;
  std::size_t i = 0;
  while (i < pts.size()) {
    std::size_t j = i, lo = i, hi = i;
    const double column = std::floor(pts[i].x);
    for (; j < pts.size() && std::floor(pts[j].x) == column; ++j) {
      if (std::isnan(pts[j].y)) continue;
      if (std::isnan(pts[lo].y) || pts[j].y > pts[lo].y) lo = j;  // screen y grows downwards
      if (std::isnan(pts[hi].y) || pts[j].y < pts[hi].y) hi = j;
    }
    out.push_back(pts[std::min(lo, hi)]);
    if (lo != hi) out.push_back(pts[std::max(lo, hi)]);
    i = j;
  }
  return out;
}

std::vector<Point> series_points(const RecordedSeries& s, const Frame& f, const Axis& xa, const Axis& ya,
                                 const DisplayUnit& u) {
  std::vector<Point> pts;
  for (const auto& p : s.samples)
    pts.push_back({to_x(f, xa, p.t), std::isfinite(p.y) ? to_y(f, ya, p.y * u.factor) : NAN, &p});
  return decimate(std::move(pts), f.x1 - f.x0);
}

std::vector<Overlap> chart_overlaps(const std::vector<std::vector<Point>>& lines) {
  std::vector<std::vector<ScreenPoint>> screen;
  for (const auto& pts : lines) {
    screen.emplace_back();
    for (const auto& p : pts) screen.back().push_back({p.x, p.y});
  }
  return overlaps(screen, kSamePixels);
}

std::string series_svg(const RecordedSeries& s, std::size_t index, const std::vector<Point>& pts, const Overlap& over,
                       const Frame& f, const Axis& xa, const DisplayUnit& u) {
  auto st = series_style(index);
  std::string d;
  bool pen_down = false;
  for (const auto& p : pts) {
    if (std::isnan(p.y)) {
      pen_down = false;
      continue;
    }
    d += fmt::format("{}{} {}", pen_down ? " L" : (d.empty() ? "M" : " M"), n1(p.x), n1(p.y));
    pen_down = true;
  }
  std::string out = fmt::format(
      "<path class=\"series\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-linejoin=\"round\"{}>"
      "<title>{}</title></path>",
      d, st.color, dash_attr(st, over), escape(label_of(s)));
  if (pts.size() <= kMarkerLimit)
    for (const auto& p : pts)
      if (!std::isnan(p.y))
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"><title>{}: {} {} at {} s</title></circle>",
                           n1(p.x), n1(p.y), n1(marker_radius(over)), st.color, escape(label_of(s)),
                           format_value(p.sample->y * u.factor, u.si), escape(u.label),
                           fmt::format("{:.3f}", p.sample->t));
  for (const auto& p : s.samples)
    if (p.lost)  // a red mark on the top edge where a count is too low
      out += fmt::format(
          "<path d=\"M{} {} l-5 -8 h10 z\" fill=\"#c00\"><title>{} at {:.3f} s: a counter wrapped more than once "
          "between reads; the count is too low</title></path>",
          n1(to_x(f, xa, p.t)), n1(f.y0), escape(label_of(s)), p.t);
  return out;
}

// The <svg> element of a chart, white background, the title's id as its accessible label.
std::string svg_open(double height, const std::string& id) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" "
      "height=\"{1}\" role=\"img\" aria-labelledby=\"{2}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
      "font-size=\"12\"><rect width=\"{0}\" height=\"{1}\" fill=\"#fff\"/>",
      kWidth, height, id);
}

std::string time_chart(const RecordedChart& c, const RecordedRun& run, const std::string& id) {
  const DisplayUnit u = chart_unit(c, run);
  const Frame f{kLeft, kWidth - kRight, kTop, kTop + kPlotHeight};
  auto [lo, hi] = chart_range(c, u.factor);
  const Axis ya = nice_axis(lo, hi);
  const Axis xa = nice_axis(0, run.times.empty() ? 1 : run.times.back(), 8);
  std::vector<std::vector<Point>> lines;
  for (const auto& s : c.series) lines.push_back(series_points(s, f, xa, ya, u));
  const auto over = chart_overlaps(lines);
  const auto labels = legend_labels(c, over);
  const Legend legend = legend_layout(c, labels);
  const double height = kTop + kPlotHeight + kBottom + legend.height;
  std::string out = svg_open(height, id);
  out += header_svg(c, u, run, id);
  out += value_axis_svg(f, ya, u.si, axis_title(u), true);
  out += "<g class=\"data\">";
  for (std::size_t i = 0; i < c.series.size(); ++i) out += series_svg(c.series[i], i, lines[i], over[i], f, xa, u);
  out += "</g>";
  out += time_axis_svg(f, xa);
  if (legend.rows) out += legend_svg(labels, over, legend, f.y1 + kBottom);
  return out + "</svg>";
}

// Run totals: one bar per series, its value at the end.
std::string bar_chart(const RecordedChart& c, const RecordedRun& run, const std::string& id) {
  const DisplayUnit u = chart_unit(c, run);
  std::size_t longest = 0;
  for (const auto& s : c.series) longest = std::max(longest, label_of(s).size());
  const double left = std::clamp(20 + kCharWidth * static_cast<double>(longest), 90.0, 360.0);
  const double rows = static_cast<double>(c.series.size()) * kBarRow + 8;
  const Frame f{left, kWidth - 120, kTop, kTop + rows};
  const double height = f.y1 + kBottom;
  auto [lo, hi] = chart_range(c, u.factor);
  const Axis xa = nice_axis(lo, hi);
  std::string out = svg_open(height, id);
  out += header_svg(c, u, run, id);
  out += value_axis_svg(f, xa, u.si, axis_title(u), false);
  out += "<g class=\"data\">";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    double v = s.samples.empty() ? NAN : s.samples.front().y * u.factor;
    double y = f.y0 + 6 + static_cast<double>(i) * kBarRow;
    double x0 = to_x(f, xa, 0), x1 = std::isfinite(v) ? to_x(f, xa, v) : x0;
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#222\">{}</text>"
        "<rect class=\"series\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>"
        "<text x=\"{}\" y=\"{}\" fill=\"#222\">{}</text>",
        n1(f.x0 - 8), n1(y + 14), escape(label_of(s)), n1(std::min(x0, x1)), n1(y), n1(std::fabs(x1 - x0)), kBarRow - 8,
        series_style(i).color, escape(label_of(s)), n1(std::max(x0, x1) + 6), n1(y + 14), format_value(v, u.si));
  }
  return out + "</g></svg>";
}

}  // namespace

SeriesStyle series_style(std::size_t i) {
  // Tableau 10: distinct in hue and lightness, readable on white.
  static constexpr std::array<const char*, 10> colors{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                                      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  static constexpr std::array<const char*, 4> dashes{"", "7 4", "2 3", "9 3 2 3"};
  return {colors[i % colors.size()], dashes[(i / colors.size()) % dashes.size()]};
}

DisplayUnit chart_unit(const RecordedChart& chart, const RecordedRun& run) {
  return display_unit(chart.unit, chart.kind == RecordKind::Event && run.intervals, chart_max_abs(chart));
}

std::string svg_chart(const RecordedChart& chart, const RecordedRun& run, const std::string& id) {
  return run.intervals ? time_chart(chart, run, id) : bar_chart(chart, run, id);
}

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

}  // namespace pmukit::tools
