// pmukit -- the manifest of a capture: what made it, from what, and what it left out and why.
#include <sys/utsname.h>

#include <ctime>

#include <nlohmann/json.hpp>

#include "capture_writer.h"
#include "pmukit/access/machine.h"

namespace pmukit::snapshot {

namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void CaptureWriter::write_manifest(std::string_view tool) {
  struct utsname u {};
  ::uname(&u);
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const auto& s : summary_.skipped) skipped.push_back({{"path", s.path}, {"why", s.why}});
  // The kernel and architecture of the machine pmu-discover ran on: for a capture of a snapshot,
  // not the snapshot's (which "source" names).
  nlohmann::ordered_json m{
      {"schema", "pmukit.capture/1"}, {"tool", std::string(tool)},   {"date", utc_now()},
      {"source", src_.describe()},    {"kernel_release", u.release}, {"architecture", u.machine},
      {"files", summary_.files},      {"links", summary_.links},     {"register_bytes", summary_.register_bytes},
      {"msrs", summary_.msrs},        {"skipped", skipped}};
  dest_.write_file(dest_.path() / std::string(kCaptureManifest), m.dump(2) + "\n");
}

}  // namespace pmukit::snapshot
