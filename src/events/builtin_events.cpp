// pmukit -- perf's uncore events for the CPU model, parsed once from the embedded data.
#include "pmukit/events/builtin_events.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "pmukit/platform/database.h"

namespace pmukit::events {

const PerfmonEvents* builtin_uncore_events(std::string_view cpu_model) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<PerfmonEvents>, std::less<>> by_path;  // models may share a file
  if (cpu_model.empty()) return nullptr;
  auto file = platform::Database::builtin().perfmon_events_file(cpu_model);
  if (!file) return nullptr;
  std::lock_guard lock(mutex);
  auto& parsed = by_path[file->path];
  if (!parsed) parsed = std::make_unique<PerfmonEvents>(PerfmonEvents::parse(file->text, "platforms/" + file->path));
  return parsed.get();
}

}  // namespace pmukit::events
