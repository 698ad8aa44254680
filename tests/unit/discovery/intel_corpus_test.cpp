// The bundled Intel machines against the real hardware they are built from: the PMON discovery
// device (8086:09a7) of each bundled machine has, capability for capability, the chain lspci -vv
// shows on a real Sapphire Rapids (corpus spr_archercity 6a:03.1) and Granite Rapids (corpus
// gnr-srf_birchstream 00:03.1) -- offsets, kinds, and the DVSEC/VSEC IDs, revisions and lengths.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "discovered.h"
#include "pmukit/pci/device.h"

using namespace pmukit;

namespace {

// "90 std", "100 dvsec 8086:0001 rev 1 len 16", "160 vsec 0041 rev 1 len 16", "148 ext" for every
// capability of the first 8086:09a7 block of an lspci -vv text.
std::vector<std::string> lspci_chain(const std::filesystem::path& file) {
  std::ifstream in(file);
  static const std::regex head(R"(^[0-9a-f:.]+ .*\[8086:09a7\])");
  static const std::regex cap(R"(^\s+Capabilities: \[([0-9a-f]+)( v\d)?\] (.*)$)");
  static const std::regex dvsec(
      R"(Designated Vendor-Specific: Vendor=([0-9a-f]{4}) ID=([0-9a-f]{4}) Rev=(\d+) Len=(\d+))");
  static const std::regex vsec(R"(Vendor Specific Information: ID=([0-9a-f]{4}) Rev=(\d+) Len=([0-9a-f]+))");
  std::vector<std::string> out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '\t' && line[0] != ' ') {
      if (inside) break;  // the next device
      inside = std::regex_search(line, head);
      continue;
    }
    std::smatch m, v;
    if (!inside || !std::regex_match(line, m, cap)) continue;
    std::string at = m[1], text = m[3];
    if (!m[2].matched)
      out.push_back(at + " std");
    else if (std::regex_search(text, v, dvsec))
      out.push_back(fmt::format("{} dvsec {}:{} rev {} len {}", at, v.str(1), v.str(2), v.str(3), v.str(4)));
    else if (std::regex_search(text, v, vsec))
      out.push_back(fmt::format("{} vsec {} rev {} len {}", at, v.str(1), v.str(2), std::stoul(v.str(3), nullptr, 16)));
    else
      out.push_back(at + " ext");
  }
  return out;
}

// The same for the first 8086:09a7 device pmukit's walker finds on a bundled machine.
std::vector<std::string> walked_chain(const std::string& bundled) {
  test::Discovered d(bundled);
  for (const auto& dev : pci::scan(*d.machine)) {
    if (dev.vendor_id != 0x8086 || dev.device_id != 0x09a7) continue;
    std::vector<std::string> out;
    for (const auto& c : dev.caps) {
      if (c.kind == pci::CapKind::Standard)
        out.push_back(fmt::format("{:x} std", c.offset));
      else if (c.dvsec)
        out.push_back(fmt::format("{:x} dvsec {:04x}:{:04x} rev {} len {}", c.offset, c.dvsec->vendor, c.dvsec->id,
                                  c.dvsec->rev, c.dvsec->length));
      else if (c.vsec)
        out.push_back(fmt::format("{:x} vsec {:04x} rev {} len {}", c.offset, c.vsec->id, c.vsec->rev, c.vsec->length));
      else
        out.push_back(fmt::format("{:x} ext", c.offset));
    }
    return out;
  }
  return {};
}

std::filesystem::path corpus(const std::string& name) {
  return test::shared_dir() / "corpus/pci-lspci-text" / name;
}

}  // namespace

TEST(IntelCorpus, SprPmonDeviceHasTheRealCapabilityChain) {
  auto file = corpus("spr_archercity_8086-09a7_pmon-msm_6a-03.x.lspci-vvnn.excerpt.txt");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "shared corpus absent";
  auto real = lspci_chain(file);
  ASSERT_EQ(real.size(), 8u) << "the corpus block: PCIe, PM, five DVSECs, one VSEC";
  EXPECT_EQ(walked_chain("spr-2s"), real);
}

TEST(IntelCorpus, GnrPmonDeviceHasTheRealCapabilityChain) {
  auto file = corpus("gnr-srf_birchstream_8086-09a7_pmon-msm_00-03.x.lspci-vvnn.excerpt.txt");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "shared corpus absent";
  auto real = lspci_chain(file);
  ASSERT_EQ(real.size(), 10u) << "the corpus block: PCIe, PM, four DVSECs, four VSECs";
  EXPECT_EQ(walked_chain("gnr-2s"), real);
}
