// pmu-report -- turns pmu-raw -j output into one self-contained HTML page: a summary table and an
// SVG time-series chart per event and per metric.
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "common/tool.h"
#include "html_page.h"
#include "pmukit/counting/recorded_run.h"
#include "pmukit/util/error.h"

using namespace pmukit;

namespace {

counting::RecordedRun read_input(const std::string& input) {
  if (input == "-") return counting::read_recorded_run(std::cin, "<stdin>");
  std::ifstream in(input);
  if (!in) throw_errno(input, errno);
  if (std::filesystem::is_directory(input)) throw Error(fmt::format("{}: is a directory", input));
  return counting::read_recorded_run(in, input);
}

void write_output(const std::string& output, const std::string& html) {
  if (output.empty() || output == "-") {
    std::fwrite(html.data(), 1, html.size(), stdout);
    if (std::fflush(stdout) != 0) throw_errno("<stdout>", errno);
    return;
  }
  std::FILE* f = std::fopen(output.c_str(), "w");
  if (!f) throw_errno(output, errno);
  bool ok = std::fwrite(html.data(), 1, html.size(), f) == html.size();
  int err = errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (!ok) throw_errno(output, err);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"pmu-report: turn pmu-raw -j output (JSON lines) into one HTML page with a summary table\n"
               "(min / median / max per event and metric) and an SVG chart per event and per metric,\n"
               "one line per socket, PMU unit or CPU as the run counted them. The page needs no script\n"
               "and no network: open it in any browser, attach it to a review, print it.\n\n"
               "Examples:\n"
               "  pmu-raw -j -I 1000 -e uncore_imc/cas_count_read/ --per-socket -o run.jsonl -- ./workload\n"
               "  pmu-report run.jsonl -o report.html\n"
               "  pmu-raw -j -I 1000 --interval-count 60 -M spr_dram_read_bw | pmu-report - -o bw.html\n"
               "It also reads perf stat -j output (the same record format).",
               "pmu-report"};
  std::string input, output;
  tools::PageOptions page;
  app.add_option("input", input, "pmu-raw -j output, one JSON record a line; - for standard input")
      ->type_name("FILE")
      ->required();
  app.add_option("-o,--output", output, "Write the page to FILE (default: standard output)")->type_name("FILE");
  app.add_option("--title", page.title, "Page title (default: the input file's name)")->type_name("TEXT");
  app.add_flag("--inputs", page.inputs,
               "Chart the events pmu-raw counted only as inputs of -M metrics too (by default the metric's chart "
               "shows them and the page names them once)");
  app.set_version_flag("-V,--version", "pmu-report (pmukit) 0.1.0");

  return tools::run_tool("pmu-report", app, argc, argv, [&] {
    auto run = read_input(input);
    if (page.title.empty())
      page.title =
          input == "-" ? "pmu-raw report" : "pmu-raw report: " + std::filesystem::path(input).filename().string();
    write_output(output, tools::html_report(run, page));
    return 0;
  });
}
