// pmu-raw -- the views of Intel PCM's tools: --memory (pcm-memory: DRAM bandwidth per socket and
// memory channel) and --io (pcm-iio: PCIe bandwidth per device), each interval one table (or CSV /
// JSON lines), optionally redrawn in place. The library picks the metrics and arranges the rows
// (pmukit/counting/pcm_views.h); this prints them.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "counting.h"
#include "pmukit/counting/pcm_views.h"

namespace pmukit::tools {

// What a view counts, and the sink that prints its intervals (given the report's options and
// whether to redraw in place).
struct ViewPlan {
  std::vector<std::string> metrics;
  Aggregation aggregation = Aggregation::PerSocket;
  std::function<std::unique_ptr<counting::Sink>(const ReportOptions&, bool refresh)> printer;
  std::string missing;  // what the view cannot show on this machine and why ("" all of it)
};
using ViewPlanner = std::function<ViewPlan(Machine&, const discovery::Inventory&)>;

// A view's sink: each interval's text, as the view makes it in the report's format, written (or
// redrawn in place); a table is followed by an empty line unless redrawn.
class ViewPrinter : public counting::Sink {
 public:
  ViewPrinter(const ReportOptions& report, bool refresh) : report_(report), refresh_(refresh) {}
  void interval(std::uint64_t since_start_ns, std::uint64_t window_ns, const std::vector<Row>& rows,
                const std::vector<MetricRow>& metrics) final;

 protected:
  // The interval's text; `header`: the first interval's (a CSV header goes before it).
  virtual std::string text(double t_s, const std::vector<Row>& rows, const std::vector<MetricRow>& metrics,
                           const ReportOptions& report, bool header) = 0;

 private:
  const ReportOptions& report_;
  bool refresh_;
  bool header_done_ = false;
};

// Counts a view's metrics per interval (-I, 1000 ms unless given, as PCM's 1 s) and prints each
// interval's view; `option` names the view in errors. Returns the exit status as run_counting does.
int run_view(RawOptions& options, std::string_view option, const ViewPlanner& plan);
// One interval's text, after clearing the screen when redrawing; throws on a failed write.
void write_view(std::FILE* out, const std::string& text, bool refresh);

int run_memory_view(RawOptions& options);  // --memory
int run_io_view(RawOptions& options);      // --io

}  // namespace pmukit::tools
