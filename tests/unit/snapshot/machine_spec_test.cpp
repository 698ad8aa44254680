// Machine specs (pmu-sim create --spec): nothing is written outside the target directory, sizes
// and counts are checked, and every mistake names where it is in the spec and what was expected.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "pmukit/families/registry.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/snapshot/machine_spec.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

json minimal() {
  return json{{"name", "t"}, {"topology", {{"sockets", 1}, {"cpus_per_die", 1}}}};
}

// The Error build_from_spec throws for `spec`, "" when it builds.
std::string error_for(const json& spec, const fs::path& root) {
  try {
    families::build_from_spec(spec, root, "my.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Every regular file under `dir` (to show nothing landed outside the target).
std::size_t files_under(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) ++n;
  return n;
}

TEST(MachineSpec, NamesJoinedIntoPathsAreSingleFileNames) {
  test::TempDir dir;
  auto dev = [](json extra) {
    json d{{"hid", "NVDA2023"}, {"kernel_pmu", "nvidia_x_pmu_0"}, {"pmu_files", {{"peer", "cpu"}}}};
    d.update(extra);
    return d;
  };
  struct Case {
    json device;
    std::string where;
  } cases[] = {
      {dev({{"pmu_files", {{"../../../../pmukit-spec-escape", "pwned"}}}}),
       "acpi_devices[0].pmu_files: '../../../../pmukit-spec-escape'"},
      {dev({{"pmu_files", {{"/tmp/pmukit-spec-abs", "pwned"}}}}), "acpi_devices[0].pmu_files: '/tmp/pmukit-spec-abs'"},
      {dev({{"kernel_pmu", "../../../../y"}}), "acpi_devices[0].kernel_pmu: '../../../../y'"},
      {dev({{"hid", "../../z"}}), "acpi_devices[0].hid: '../../z'"},
      {dev({{"kernel_pmu", ".."}}), "acpi_devices[0].kernel_pmu: '..'"},
  };
  int i = 0;
  for (const auto& c : cases) {
    auto spec = minimal();
    spec["acpi_devices"] = json::array({c.device});
    auto root = dir / ("m" + std::to_string(i++));
    auto msg = error_for(spec, root);
    EXPECT_NE(msg.find("my.json: " + c.where + " is not a file name"), std::string::npos) << msg;
  }
  // Nothing was written beside the targets (a pwned file would be in `dir` or above it; names no
  // other program in a shared /tmp would use).
  EXPECT_FALSE(fs::exists(dir / "pmukit-spec-escape"));
  EXPECT_FALSE(fs::exists(dir.path().parent_path() / "pmukit-spec-escape"));
  EXPECT_FALSE(fs::exists("/tmp/pmukit-spec-abs"));
  // An APMT node's kernel_pmu (after {i} expansion) obeys the same rule.
  auto spec = minimal();
  spec["apmt"] = {{"nodes", json::array({{{"id", 0}, {"type", "mc"}, {"base0", "0x10000"}, {"kernel_pmu", "a/{i}"}}})}};
  EXPECT_NE(error_for(spec, dir / "apmt").find("apmt.nodes[0].kernel_pmu: 'a/0' is not a file name"),
            std::string::npos);
}

TEST(MachineSpec, ConfigSizeAboveConfigSpaceIsRefusedNotReadPastTheImage) {
  test::TempDir dir;
  auto spec = minimal();
  spec["pci_devices"] = json::array({{{"bdf", "0000:00:01.0"}, {"id", "8086:0001"}, {"config_size", 65536}}});
  EXPECT_NE(error_for(spec, dir / "m").find("pci_devices[0].config_size: 65536 is not 64, 256 or 4096"),
            std::string::npos);
  // The builder itself refuses too (the stack over-read was there).
  snapshot::SnapshotBuilder b(dir / "b");
  snapshot::PciDeviceSpec d;
  d.bdf = Bdf{0, 0, 1, 0};
  d.config_size = 8192;
  EXPECT_THROW(b.add_pci_device(d), Error);
}

TEST(MachineSpec, CountsAreCappedWithAClearError) {
  test::TempDir dir;
  auto sockets = minimal();
  sockets["topology"]["sockets"] = 1000000;
  EXPECT_NE(error_for(sockets, dir / "s").find("my.json: topology.sockets: 0xf4240 is larger than 0x40"),
            std::string::npos);
  auto cpus = minimal();
  cpus["topology"] = {{"sockets", 64}, {"dies_per_socket", 64}, {"cpus_per_die", 64}};
  EXPECT_NE(error_for(cpus, dir / "c").find("is more than 8192 CPUs"), std::string::npos);
  auto apmt = minimal();
  apmt["apmt"] = {{"nodes", json::array({{{"id", 0}, {"type", "mc"}, {"base0", "0x10000"}, {"repeat", 1000000}}})}};
  EXPECT_NE(error_for(apmt, dir / "a").find("apmt.nodes[0].repeat: 1000000 more nodes make more than 4096"),
            std::string::npos);
  auto ids = minimal();
  ids["msr_devices"] = true;
  ids["intel_tables"] = json::array({{{"msr", {{"cpu", 0}, {"msr", "0x201e"}, {"base", "0x1000000"}}},
                                      {"units", json::array({{{"type", 1},
                                                              {"ids", "0-5000"},
                                                              {"access", "msr"},
                                                              {"box_ctl", "0x2000"},
                                                              {"ctl_offset", 2},
                                                              {"ctr_offset", 8}}})}}});
  EXPECT_NE(error_for(ids, dir / "i").find("intel_tables[0].units[0].ids: more than 1023 ids"), std::string::npos);
  auto stride = minimal();
  stride["intel_tables"] =
      json::array({{{"msr", {{"cpu", 0}, {"msr", "0x201e"}, {"base", "0x1000000"}}}, {"stride", 1000000000}}});
  EXPECT_NE(error_for(stride, dir / "st").find("intel_tables[0].stride: 0x3b9aca00 is larger than 0xff"),
            std::string::npos);
}

TEST(MachineSpec, ErrorsSayWhereAndWhatWasExpected) {
  test::TempDir dir;
  auto port = [](json rp) {
    auto s = minimal();
    s["pcie_root_ports"] = json::array(
        {{{"bdf", "0000:00:00.0"}, {"id", "10de:22b2"}}, {{"bdf", "0000:00:01.0"}, {"id", "10de:22b2"}}, rp});
    return s;
  };
  struct Case {
    json spec;
    std::string message;
  } cases[] = {
      {port({{"bdf", "0000:00:02.0"}, {"id", 5}}),
       "my.json: pcie_root_ports[2].id: expected a hex string \"vvvv:dddd\", got the number 5"},
      {port({{"bdf", "0000:00:02.0"}, {"id", "10de"}}),
       "pcie_root_ports[2].id: expected a hex string \"vvvv:dddd\", got the string \"10de\""},
      {port({{"bdf", "0000:00:02.0"}}), "pcie_root_ports[2]: missing \"id\""},
      {port({{"bdf", "0000:00:02.0"}, {"id", "10de:22b2"}, {"buses", json::array({1})}}),
       "pcie_root_ports[2].buses: expected at least 2 entries, got 1"},
      {port({{"bdf", 7}, {"id", "10de:22b2"}}), "pcie_root_ports[2].bdf: expected a PCI address"},
      {port({{"bdf", "0000:00:02.0"}, {"id", "10de:22b2"}, {"numa_node", "x"}}),
       "pcie_root_ports[2].numa_node: expected a whole number from -1 to 1023, got the string \"x\""},
      {json::array(), "my.json: the spec: expected a JSON object, got an array"},
      {json{{"name", 3}}, "my.json: name: expected a string, got the number 3"},
      {json{{"name", "t"}}, "my.json: the spec: missing \"topology\""},
  };
  int i = 0;
  for (const auto& c : cases) {
    auto msg = error_for(c.spec, dir / ("m" + std::to_string(i++)));
    EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
    EXPECT_EQ(msg.find("json.exception"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("substr"), std::string::npos) << msg;
  }
  auto cap = minimal();
  cap["pci_devices"] = json::array(
      {{{"bdf", "0000:00:01.0"}, {"id", "8086:0001"}, {"caps", json::array({{{"at", 70000}, {"ext", 1}}})}}});
  EXPECT_NE(error_for(cap, dir / "cap").find("pci_devices[0].caps[0].at: 0x11170 is not a dword-aligned extended"),
            std::string::npos);
}

TEST(MachineSpec, TheBuilderNeverWritesThroughAPlantedLink) {
  // A tree someone else prepared: its PMU type file is a link to a file outside it.
  test::TempDir dir;
  auto canary = dir / "canary";
  write_file(canary, "CANARY\n");
  auto pmu_dir = dir / "m/sys/bus/event_source/devices/p";
  fs::create_directories(pmu_dir);
  fs::create_symlink(canary, pmu_dir / "type");
  snapshot::SnapshotBuilder b(dir / "m");
  EXPECT_THROW(b.write_text("/sys/bus/event_source/devices/p/type", "7\n"), Error);
  EXPECT_EQ(read_file(canary), "CANARY\n");
  // ".." in a name the builder is handed stays inside the root.
  b.write_text("/../../../escaped", "x");
  EXPECT_FALSE(fs::exists(dir / "escaped"));
  EXPECT_TRUE(fs::exists(dir / "m/escaped"));
  EXPECT_EQ(files_under(dir.path()), 3u);  // the canary, the planted link to it, and m/escaped
}

}  // namespace
