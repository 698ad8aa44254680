// pmukit -- embedding example: count events (perf's syntax) on a machine -- live, or the snapshot
// directory given as argv[1] while `pmu-sim run` serves it -- for one second of the machine's
// clock, as `pmu-raw -e EVENT --duration 1` does, and print each event's count summed over every
// unit it counts on, with the value its .scale and .unit make of it.
//
//   count_events DIR [EVENT...]      (default: uncore_imc/cas_count_read/)
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "pmukit/access/machine.h"
#include "pmukit/counting/read_loop.h"
#include "pmukit/util/error.h"

namespace {

using pmukit::counting::MetricRow;
using pmukit::counting::Row;

// The read loop hands its sink the counts of the whole run (or of each interval, with
// LoopOptions::interval_ns): one row per event and unit.
class PrintTotals : public pmukit::counting::Sink {
 public:
  explicit PrintTotals(const pmukit::counting::Run& run) : run_(run) {}
  void interval(std::uint64_t, std::uint64_t, const std::vector<Row>&, const std::vector<MetricRow>&) override {}
  void totals(std::uint64_t elapsed_ns, const std::vector<Row>& rows, const std::vector<MetricRow>&) override {
    for (std::size_t spec = 0; spec < run_.specs.size(); ++spec) {
      std::uint64_t count = 0;  // multiplexed rows are already scaled, as perf stat scales them
      double scale = 1;
      std::string unit;
      for (const Row& r : rows)
        if (r.spec == spec) count += r.count, scale = r.scale, unit = r.unit;
      std::printf("%s: %llu counts, %.2f %s in %.3f s\n", run_.specs[spec].text.c_str(),
                  static_cast<unsigned long long>(count), static_cast<double>(count) * scale,
                  unit.empty() ? "counts" : unit.c_str(), static_cast<double>(elapsed_ns) / 1e9);
    }
  }

 private:
  const pmukit::counting::Run& run_;
};

}  // namespace

int main(int argc, char** argv) {
  pmukit::MachineOptions machine_options;
  if (argc > 1) machine_options.root = argv[1];
  pmukit::counting::Request request;
  for (int i = 2; i < argc; ++i) request.events.push_back(argv[i]);
  if (request.events.empty()) request.events.push_back("uncore_imc/cas_count_read/");
  try {
    pmukit::Machine machine(machine_options);
    // Discovers the units, binds the events to them, and chooses how each PMU is counted:
    // programming its registers where they can be reached and are free, the kernel's perf otherwise.
    pmukit::counting::Run run(machine, request);
    pmukit::counting::LoopOptions loop_options;
    loop_options.duration_ns = 1'000'000'000;
    PrintTotals totals(run);
    pmukit::counting::ReadLoop loop(run, loop_options, totals);
    loop.count();                   // start, read until the second is over, stop
    auto problems = loop.finish();  // put every register back, then the totals to the sink
    for (const auto& p : problems) std::fprintf(stderr, "count_events: error: %s\n", p.c_str());
    return problems.empty() ? 0 : 1;
  } catch (const pmukit::Error& e) {
    std::fprintf(stderr, "count_events: error: %s\n", e.what());
    return 1;
  }
}
