// pmukit -- capturing a machine (live, or a snapshot) as a snapshot tree: pmu-discover --capture.
//
// A CaptureRecorder watches the machine root while discovery runs: every path opened, listed,
// stat'ed or read as a link under the root (util/confined_root.h), every register access of every
// proven window (access/register_window.h) and every MSR read. write_capture then copies exactly
// that into a new tree, in the snapshot layout (docs/snapshot-format.md), so that --snapshot on the
// capture runs the same code over the same bytes: files as they are, links as links, the PCI files
// libpci reads for every function, the pages of the register windows discovery read (never
// beyond the window) and the MSRs it read, and a manifest (kCaptureManifest) of what was skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace pmukit {
class Machine;
}  // namespace pmukit

namespace pmukit::snapshot {

// The manifest at the capture's root (JSON, schema pmukit.capture/1).
inline constexpr std::string_view kCaptureManifest = "PMUKIT_CAPTURE.json";

struct CaptureSkip {
  std::string path;  // "/sys/class/dmi/id/product_serial", or "register windows"
  std::string why;
};

struct CaptureSummary {
  std::size_t files = 0, links = 0, register_bytes = 0, msrs = 0;
  std::vector<CaptureSkip> skipped;
};

// Records what is read of `machine` from construction until stop() or destruction. One at a time.
class CaptureRecorder {
 public:
  explicit CaptureRecorder(const Machine& machine);
  ~CaptureRecorder();
  CaptureRecorder(const CaptureRecorder&) = delete;
  CaptureRecorder& operator=(const CaptureRecorder&) = delete;
  void stop();

  // How a path was used: looked at (stat, an open on the way), listed as a directory, read.
  enum : int { kSeen = 1, kListed = 2, kRead = 4 };
  // Paths below the root -> OR of the uses above.
  const std::map<std::filesystem::path, int>& paths() const { return paths_; }
  // (file, first byte, end) ranges: each a page that was accessed, cut to its window.
  const std::set<std::tuple<std::string, std::uint64_t, std::uint64_t>>& register_ranges() const { return ranges_; }
  const std::set<std::pair<int, std::uint32_t>>& msrs() const { return msrs_; }
  // CPUID leaves read: cpu -> the dev/cpu/N/cpuid text (access/cpuid.h), one line per leaf.
  const std::map<int, std::map<std::pair<std::uint32_t, std::uint32_t>, std::string>>& cpuid() const { return cpuid_; }

 private:
  const Machine& machine_;
  bool active_ = true;
  std::map<std::filesystem::path, int> paths_;
  std::set<std::tuple<std::string, std::uint64_t, std::uint64_t>> ranges_;
  std::set<std::pair<int, std::uint32_t>> msrs_;
  std::map<int, std::map<std::pair<std::uint32_t, std::uint32_t>, std::string>> cpuid_;
};

// Writes the capture of `source` into `dir` (which must be empty or absent): what `recorder` saw,
// the files libpci reads of every PCI function, and the manifest naming `tool`. Private files
// (DMI serials and UUIDs, MAC addresses) are never copied. Throws Error naming a file it cannot
// write; what it cannot read is skipped and said in the manifest.
CaptureSummary write_capture(Machine& source, const CaptureRecorder& recorder, const std::filesystem::path& dir,
                             std::string_view tool);

}  // namespace pmukit::snapshot
