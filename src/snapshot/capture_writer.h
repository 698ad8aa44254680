// pmukit -- internal: the writer behind snapshot::write_capture (capture.cpp copies,
// capture_manifest.cpp writes the manifest).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "pmukit/snapshot/builder.h"
#include "pmukit/snapshot/capture.h"
#include "pmukit/util/confined_root.h"

namespace pmukit::snapshot {

class CaptureWriter {
 public:
  CaptureWriter(Machine& source, const std::filesystem::path& dir);

  void copy_recorded(const CaptureRecorder& recorder);
  void copy_pci();
  void copy_kernel_pmus();
  void copy_acpi_devices();
  void copy_ranges(const CaptureRecorder& recorder);
  void copy_msrs(const CaptureRecorder& recorder);
  void copy_cpuid(const CaptureRecorder& recorder);
  // Something left out: a path below the root (once), or anything else, said as `what`.
  void skip(const std::filesystem::path& rel, std::string why);
  void note(std::string what, std::string why);
  void write_manifest(std::string_view tool);
  const CaptureSummary& summary() const { return summary_; }

 private:
  std::filesystem::path src_path(const std::filesystem::path& rel) const;
  static std::string abs(const std::filesystem::path& rel);
  bool is_register_file(const std::filesystem::path& rel) const;
  void copy_path(const std::filesystem::path& rel, int depth);
  void follow_link(const std::filesystem::path& at, const std::filesystem::path& rest, int depth);
  void copy_file(const std::filesystem::path& rel, const struct stat& st);
  void copy_listing(const std::filesystem::path& rel);
  UniqueFd open_output(const std::filesystem::path& rel);
  void extend(const std::filesystem::path& rel, std::uint64_t size);
  void write_at(const std::filesystem::path& rel, std::uint64_t offset, const std::vector<std::uint8_t>& data);
  bool read_range(const std::string& file, std::uint64_t offset, std::uint64_t len, std::vector<std::uint8_t>& out);

  Machine& src_;
  const ConfinedRoot& in_;
  SnapshotBuilder out_;
  ConfinedRoot dest_;
  CaptureSummary summary_;
  bool short_config_ = false;
  std::set<std::filesystem::path> made_dirs_, made_links_, copied_, skipped_paths_;
};

}  // namespace pmukit::snapshot
