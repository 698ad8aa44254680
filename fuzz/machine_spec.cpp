// pmukit fuzz -- machine specs (pmu-sim create --spec): any JSON document is built into a fresh
// directory; errors are fine, crashes, hangs and writes outside that directory are not (the
// scratch directory's parent is checked to hold nothing but it).
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace {

// Whether a count asks for more than a few dozen copies of something (CPUs, APMT nodes, ACPI
// instances). The caps themselves are tested in the suite (tests/unit/snapshot); here they would
// only make each input take seconds of file writes instead of exercising the spec's parsing.
bool big_counts(const nlohmann::json& j) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      static constexpr std::string_view kCounts[] = {"sockets", "dies_per_socket", "cpus_per_die", "repeat", "count"};
      for (auto k : kCounts)
        if (key == k && ((value.is_number() && value.get<double>() > 16) ||
                         (value.is_string() && pmukit::parse_u64(value.get<std::string>()).value_or(0) > 16)))
          return true;
      if (big_counts(value)) return true;
    }
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (big_counts(v)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto spec = nlohmann::json::parse(data, data + size, nullptr, false);
  if (spec.is_discarded() || big_counts(spec)) return 0;
  auto base = pmukit::fuzz::scratch() / "spec";
  std::error_code ec;
  std::filesystem::remove_all(base, ec);
  std::filesystem::create_directories(base / "m");
  try {
    pmukit::families::build_from_spec(spec, base / "m", "fuzz");
  } catch (const pmukit::Error&) {
  }
  for (const auto& e : std::filesystem::directory_iterator(base))
    if (e.path().filename() != "m") std::abort();  // something was written beside the target
  return 0;
}
