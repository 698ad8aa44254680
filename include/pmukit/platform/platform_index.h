// pmukit -- which platforms/ file defines each named table and SoC section (platforms/index.json),
// so the built-in database parses only the files a lookup needs: a gnr machine reads intel/gnr.json,
// not every Intel platform, and root-port mapping reads nvidia/pcie_rcmap.json, not all SoC data.
// "perfmon_events" names, for a CPU model, the file of the uncore events perf knows on it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pmukit::platform {

struct PlatformIndex {
  // The index file's path below platforms/.
  static constexpr std::string_view kPath = "index.json";
  // The top-level keys of SoC data (soc_data.h), each a section the index maps to its files.
  static constexpr std::string_view kSocSections[] = {"coresight", "pcie_rc_maps", "t410_blocks", "designware_rasdes",
                                                      "cmn"};

  using Files = std::map<std::string, std::string, std::less<>>;     // name -> file below platforms/
  Files intel_uncore;                                                // intel/<x>.json "name"
  Files iio_maps;                                                    // "iio_maps"[].name
  Files counter_constraints;                                         // "counter_constraints"[].name
  Files perfmon_events;                                              // perfmon/<x>.json "cpu_models"[]
  std::map<std::string, std::vector<std::string>, std::less<>> soc;  // SoC section -> files, sorted

  // platforms/index.json's text; throws Error naming the file and the entry when malformed.
  static PlatformIndex parse(std::string_view text);
  // What (path, JSON text) files define, found by parsing them: the index they should have.
  static PlatformIndex of_files(const std::vector<std::pair<std::string, std::string>>& files);
  // Every file the index names, sorted, each once.
  std::vector<std::string> files() const;

  bool operator==(const PlatformIndex&) const = default;
};

}  // namespace pmukit::platform
