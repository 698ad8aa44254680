// pmu-report -- page layout and the summary table.
#include "html_page.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scale.h"
#include "svg_chart.h"

namespace pmukit::tools {

namespace {

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222; max-width: 1000px;
       margin: 24px auto; padding: 0 16px; font-size: 14px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
.meta { color: #555; margin: 2px 0; }
table { border-collapse: collapse; font-size: 13px; width: 100%; }
th, td { padding: 4px 8px; border-bottom: 1px solid #e6e6e6; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.sum td { font-style: italic; color: #444; }
td.series { white-space: nowrap; }
td.note { color: #a40; }
a { color: #1f5fa8; text-decoration: none; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
figure.plot { margin: 18px 0; }
figure.plot svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
@media print { figure.plot, tr { break-inside: avoid; } }
)";

std::string plot_id(std::size_t i) {
  return fmt::format("plot-{}", i + 1);
}

bool has_metric(const RecordedRun& run, const std::string& name) {
  return std::any_of(run.charts.begin(), run.charts.end(),
                     [&](const RecordedChart& c) { return c.kind == RecordKind::Metric && c.name == name; });
}

// An event pmu-raw counted only as the input of metrics that are all on the page: the metric
// shows it, so it is not charted (or tabled) a second time.
bool shown_by_metrics(const RecordedChart& c, const RecordedRun& run) {
  return c.kind == RecordKind::Event && !c.input_of.empty() &&
         std::all_of(c.input_of.begin(), c.input_of.end(), [&](const std::string& m) { return has_metric(run, m); });
}

// Charts in page order: metrics (what the run was for), then the events they come from; without
// `inputs`, not the events the metrics were counted from alone.
std::vector<std::size_t> page_order(const RecordedRun& run, bool inputs) {
  std::vector<std::size_t> order;
  for (auto kind : {RecordKind::Metric, RecordKind::Event})
    for (std::size_t i = 0; i < run.charts.size(); ++i)
      if (run.charts[i].kind == kind && (inputs || !shown_by_metrics(run.charts[i], run))) order.push_back(i);
  return order;
}

// The events left out, and where they are: "uncore_imc/cas_count_read/ (counted for dram_read_bw)".
std::string inputs_note(const RecordedRun& run, bool inputs) {
  std::vector<std::string> left_out;
  for (const auto& c : run.charts)
    if (!inputs && shown_by_metrics(c, run))
      left_out.push_back(fmt::format("{} (for {})", c.name, fmt::join(c.input_of, ", ")));
  if (left_out.empty()) return "";
  return fmt::format("<p class=\"meta inputs\">Not charted again: {}, counted only as the input of the "
                     "metric{} it is for, which the page shows (<code>pmu-report --inputs</code> charts {} too).</p>\n",
                     escape(fmt::format("{}", fmt::join(left_out, "; "))), left_out.size() == 1 ? "" : "s",
                     left_out.size() == 1 ? "it" : "them");
}

std::string meta_line(const RecordedRun& run) {
  std::vector<std::string> parts{fmt::format("{} records", run.records)};
  if (run.intervals) {
    std::vector<double> lengths;
    for (std::size_t i = 0; i < run.times.size(); ++i) lengths.push_back(run.times[i] - (i ? run.times[i - 1] : 0));
    parts.push_back(
        fmt::format("{} interval{} of {} s (median), {} s in all", run.times.size(), run.times.size() == 1 ? "" : "s",
                    format_value(counting::stats_of(lengths).median, false), format_value(run.times.back(), false)));
  } else {
    parts.push_back("run totals (no -I)");
  }
  std::set<std::string> backends;
  for (const auto& c : run.charts)
    for (const auto& s : c.series) backends.insert(s.backends.begin(), s.backends.end());
  if (!backends.empty()) parts.push_back(fmt::format("backend {}", fmt::join(backends, ", ")));
  std::vector<std::string> per;
  for (const auto& g : run.grouping) per.push_back(g == "pmu" ? "PMU unit" : g == "cpu" ? "CPU" : g);
  if (!per.empty()) parts.push_back(fmt::format("one series per {}", fmt::join(per, " and ")));
  parts.push_back(fmt::format("{} event{}, {} metric{}", run.count(RecordKind::Event),
                              run.count(RecordKind::Event) == 1 ? "" : "s", run.count(RecordKind::Metric),
                              run.count(RecordKind::Metric) == 1 ? "" : "s"));
  return fmt::format("{}", fmt::join(parts, " · "));
}

std::string notes_of(const RecordedSeries& s) {
  std::vector<std::string> notes;
  std::size_t lost = 0, gaps = 0;
  for (const auto& p : s.samples) lost += p.lost, gaps += !std::isfinite(p.y);
  if (lost) notes.push_back(fmt::format("count too low in {} (a counter wrapped twice between reads)", lost));
  if (gaps) notes.push_back(fmt::format("no value in {}", gaps));
  if (s.min_running_pct < 100)
    notes.push_back(fmt::format("counted {:.1f}% of the time (multiplexed)", s.min_running_pct));
  return fmt::format("{}", fmt::join(notes, "; "));
}

std::string row_html(const std::string& name_cell, const std::string& series_html, const DisplayUnit& u,
                     const Stats& st, const std::string& total, const std::string& notes, bool sum) {
  return fmt::format(
      "<tr{}><td>{}</td><td class=\"series\">{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"note\">{}</td></tr>\n",
      sum ? " class=\"sum\"" : "", name_cell, series_html, escape(u.label), format_value(st.min * u.factor, u.si),
      format_value(st.median * u.factor, u.si), format_value(st.max * u.factor, u.si), total, st.n, escape(notes));
}

// The series a table shows: all of them, or for many (per box: 32 CHAs) the lowest and the highest
// by median, where an imbalance shows; the chart has every one.
constexpr std::size_t kTableSeries = 8;

std::vector<std::pair<std::size_t, std::string>> table_series(const RecordedChart& c) {
  std::vector<std::pair<std::size_t, std::string>> out;
  if (c.series.size() <= kTableSeries) {
    for (std::size_t i = 0; i < c.series.size(); ++i) out.emplace_back(i, "");
    return out;
  }
  std::size_t lo = 0, hi = 0;
  std::vector<double> medians;
  for (const auto& s : c.series) medians.push_back(counting::stats_of(s).median);
  for (std::size_t i = 0; i < medians.size(); ++i) {
    if (std::isnan(medians[lo]) || medians[i] < medians[lo]) lo = i;
    if (std::isnan(medians[hi]) || medians[i] > medians[hi]) hi = i;
  }
  if (medians[lo] == medians[hi]) {
    out.emplace_back(lo, fmt::format("all {} alike, e.g. ", c.series.size()));
  } else {
    out.emplace_back(lo, "lowest: ");
    out.emplace_back(hi, "highest: ");
  }
  return out;
}

std::string series_cell(const RecordedChart& c, std::size_t i, const std::string& prefix) {
  const auto& label = c.series[i].label;
  return fmt::format("<span class=\"swatch\" style=\"background:{}\"></span>{}{}", series_style(i).color,
                     escape(prefix), escape(label.empty() ? "all units" : label));
}

std::string many_note(const RecordedChart& c) {
  return c.series.size() > kTableSeries ? fmt::format("{} series, the chart shows each", c.series.size()) : "";
}

std::string join_notes(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

std::string interval_rows(const RecordedChart& c, const RecordedRun& run, const std::string& link) {
  const DisplayUnit u = chart_unit(c, run);
  std::string out;
  bool first = true;
  for (const auto& [i, prefix] : table_series(c)) {
    const auto& s = c.series[i];
    std::string total;
    if (c.kind == RecordKind::Event) {  // the count over the run, in the event's own unit
      double sum = 0;
      for (const auto& p : s.samples)
        if (std::isfinite(p.value)) sum += p.value;
      DisplayUnit tu = display_unit(c.unit, false, sum);
      total = fmt::format("{} {}", format_value(sum * tu.factor, tu.si), escape(tu.label));
    }
    out += row_html(first ? link : "", series_cell(c, i, prefix), u, counting::stats_of(s), total,
                    join_notes(first ? many_note(c) : "", notes_of(s)), false);
    first = false;
  }
  if (c.kind == RecordKind::Event && c.series.size() > 1)
    out += row_html("", fmt::format("sum of {}", c.series.size()), u, counting::stats_of(counting::sum_series(c)), "",
                    "", true);
  return out;
}

std::string totals_rows(const RecordedChart& c, const RecordedRun& run, const std::string& link) {
  const DisplayUnit u = chart_unit(c, run);
  std::string out;
  bool first = true;
  for (const auto& [i, prefix] : table_series(c)) {
    const auto& s = c.series[i];
    double v = s.samples.empty() ? NAN : s.samples.front().y;
    out += fmt::format("<tr><td>{}</td><td class=\"series\">{}</td><td>{}</td><td class=\"num\">{}</td><td "
                       "class=\"note\">{}</td></tr>\n",
                       first ? link : "", series_cell(c, i, prefix), escape(u.label), format_value(v * u.factor, u.si),
                       escape(join_notes(first ? many_note(c) : "", notes_of(s))));
    first = false;
  }
  return out;
}

std::string summary_table(const RecordedRun& run, bool inputs) {
  std::string out = "<table class=\"summary\">\n<thead><tr><th>event or metric</th><th>series</th><th>unit</th>";
  out += run.intervals ? "<th class=\"num\">min</th><th class=\"num\">median</th><th class=\"num\">max</th>"
                         "<th class=\"num\">total</th><th class=\"num\">intervals</th>"
                       : "<th class=\"num\">value</th>";
  out += "<th>notes</th></tr></thead>\n<tbody>\n";
  auto order = page_order(run, inputs);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const RecordedChart& c = run.charts[order[k]];
    std::string link = fmt::format("<a href=\"#{}\">{}</a>", plot_id(k), escape(c.name));
    out += run.intervals ? interval_rows(c, run, link) : totals_rows(c, run, link);
  }
  return out + "</tbody>\n</table>\n";
}

}  // namespace

std::string html_report(const RecordedRun& run, const PageOptions& options) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"generator\" content=\"pmu-report (pmukit)\">\n<title>{0}</title>\n<style>{1}</style>\n"
      "</head>\n<body>\n<header>\n<h1>{0}</h1>\n<p class=\"meta\">{2}</p>\n<p class=\"meta\">{3}</p>\n</header>\n",
      escape(options.title), kStyle, escape(run.source), escape(meta_line(run)));
  out += "<section id=\"summary\">\n<h2>Summary</h2>\n";
  const bool data =
      std::any_of(run.charts.begin(), run.charts.end(), [](const RecordedChart& c) { return is_data_unit(c.unit); });
  const std::string decimal = data ? " Data in decimal units (1 GB = 10⁹ bytes), as perf and PCM give bandwidth." : "";
  out += run.intervals
             ? "<p class=\"meta\">Events: count per second of each interval; total: over the whole run. "
               "Metrics: their value in each interval." +
                   decimal + "</p>\n"
             : "<p class=\"meta\">Each event's count and each metric's value over the whole run." + decimal + "</p>\n";
  out += inputs_note(run, options.inputs);
  out += summary_table(run, options.inputs) + "</section>\n";
  auto order = page_order(run, options.inputs);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const RecordedChart& c = run.charts[order[k]];
    bool first_of_kind = k == 0 || run.charts[order[k - 1]].kind != c.kind;
    if (first_of_kind) {
      if (k) out += "</section>\n";
      out += c.kind == RecordKind::Metric ? "<section id=\"metrics\">\n<h2>Metrics</h2>\n"
                                          : "<section id=\"events\">\n<h2>Events</h2>\n";
    }
    out += fmt::format("<figure class=\"plot\" id=\"{}\" data-kind=\"{}\">\n{}\n</figure>\n", plot_id(k),
                       c.kind == RecordKind::Metric ? "metric" : "event", svg_chart(c, run, plot_id(k) + "-title"));
  }
  out += "</section>\n<footer>Made by pmu-report (pmukit) from pmu-raw -j output.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace pmukit::tools
