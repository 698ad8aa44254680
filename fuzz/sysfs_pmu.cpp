// pmukit fuzz -- a kernel PMU's sysfs directory (perf::read_pmu): type, cpumask, a format/ field,
// an events/ alias with its .scale and .unit, and the mux interval, each a NUL-separated piece of
// the input, read back through the machine root as pmu-raw reads them.
#include <vector>

#include "fuzz_support.h"
#include "pmukit/access/machine.h"
#include "pmukit/perf/sysfs_pmu.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"

using namespace pmukit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* kFiles[] = {"type",
                                 "cpumask",
                                 "format/umask",
                                 "events/cas",
                                 "events/cas.scale",
                                 "events/cas.unit",
                                 "perf_event_mux_interval_ms"};
  auto root = fuzz::scratch() / "pmu";
  auto dir = root / "sys/bus/event_source/devices/uncore_imc_0";
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  std::string_view in = fuzz::text(data, size);
  for (const char* f : kFiles) {
    auto nul = in.find('\0');
    write_file(dir / f, in.substr(0, nul));
    in = nul == std::string_view::npos ? std::string_view{} : in.substr(nul + 1);
  }
  write_file(dir / "format/event", "config:0-7\n");
  try {
    Machine machine(MachineOptions{root});
    (void)perf::read_pmu(machine, "uncore_imc_0");
  } catch (const Error&) {
  }
  return 0;
}
