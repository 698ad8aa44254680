// pmukit tests -- hostile snapshots: a bundled machine with one file replaced by a FIFO, a link to
// an endless device, or a link that leads out of the root, and a canary outside the root where
// the hostile links point. A case passes when the tool ends with one clean error line (or, where
// the file is optional, without one), and the canary is neither read nor changed.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pmukit/families/registry.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

namespace pmukit::test {

class HostileSnapshot {
 public:
  explicit HostileSnapshot(const std::string& bundled) {
    families::build_bundled(bundled, root);
    std::filesystem::create_directories(canary);
    // What a hostile link points at: files a tool must neither read nor write.
    for (const char* name : {"APMT", "cpuinfo", "type", "lock", "msr", "mem", "config"})
      write_file(canary / name, std::string("CANARY ") + name + "\n");
    snapshot_canary();
  }

  std::filesystem::path root_path(const std::string& rel) const { return root / rel; }
  // Replaces ROOT/rel (a file, a link or a directory) with a FIFO.
  void fifo(const std::string& rel) {
    remove(rel);
    std::filesystem::create_directories(root_path(rel).parent_path());
    ASSERT_EQ(::mkfifo(root_path(rel).c_str(), 0644), 0) << rel;
  }
  // Replaces ROOT/rel with a symbolic link to `target`.
  void link(const std::string& rel, const std::filesystem::path& target) {
    remove(rel);
    std::filesystem::create_directories(root_path(rel).parent_path());
    std::filesystem::create_symlink(target, root_path(rel));
  }
  void remove(const std::string& rel) {
    std::error_code ec;
    std::filesystem::remove_all(root_path(rel), ec);
  }

  // Runs a tool on the snapshot; a hang is a failure (the guard kills it after 30 s), never a wait.
  RunResult run(const std::string& tool, std::vector<std::string> args) const {
    args.insert(args.begin(),
                {"-s", "KILL", "30", std::string(PMUKIT_TOOLS_DIR) + "/" + tool, "--snapshot", root.string()});
    return run_program("timeout", args);
  }

  // The tool ended with exit status 1 and exactly one line on stderr, "<tool>: error: ..." with
  // `needle` in it; nothing outside the root changed.
  void expect_error(const RunResult& r, const std::string& tool, const std::string& needle) const {
    EXPECT_EQ(r.status, 1) << r.err;
    std::string want = tool + ": error: ";
    EXPECT_EQ(r.err.rfind(want, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "wanted '" << needle << "' in: " << r.err;
    expect_canary_untouched();
  }

  // The tool ended normally (status 0) and warned about `needle`: one bad unit of many is a
  // warning, the rest is still found.
  void expect_warning(const RunResult& r, const std::string& tool, const std::string& needle) const {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find(tool + ": warning: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "wanted '" << needle << "' in: " << r.err;
    expect_canary_untouched();
  }

  void expect_canary_untouched() const {
    std::map<std::string, std::string> now;
    for (const auto& e : std::filesystem::directory_iterator(canary))
      now[e.path().filename().string()] = stamp(e.path());
    EXPECT_EQ(now, canary_state_) << "a file outside the snapshot root was created or changed";
  }

  TempDir dir;
  std::filesystem::path root = dir / "m";
  std::filesystem::path canary = dir / "canary";  // outside the root

 private:
  static std::string stamp(const std::filesystem::path& p) {
    struct stat st {};
    ::lstat(p.c_str(), &st);
    return read_file(p) + "@" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "/" +
           std::to_string(st.st_size);
  }
  void snapshot_canary() {
    for (const auto& e : std::filesystem::directory_iterator(canary))
      canary_state_[e.path().filename().string()] = stamp(e.path());
  }
  std::map<std::string, std::string> canary_state_;
};

// The first PCI device directory of a snapshot (a BDF name).
inline std::string first_pci_device(const std::filesystem::path& root) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(root / "sys/bus/pci/devices"))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names.empty() ? "" : names.front();
}

}  // namespace pmukit::test
