// Agreement with lspci -vvv: for every fixture (read through libpci's sysfs method by both tools)
// and every corpus hex dump (read with -F / the dump method), the capability offsets, extended
// versions and VSEC/DVSEC IDs pmukit reports equal lspci's.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "pmukit/access/machine.h"
#include "pmukit/pci/device.h"
#include "support/pci_fixtures.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

struct LspciCap {
  unsigned offset = 0;
  int version = -1;  // -1: standard capability
  std::string text;  // everything after "] "
};

// Parses lspci -D -vvv output into BDF -> capability lines (chain markers dropped).
std::map<std::string, std::vector<LspciCap>> parse_lspci(const std::string& out) {
  std::map<std::string, std::vector<LspciCap>> devs;
  static const std::regex dev_re(R"(^([0-9a-f]{4,5}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) )");
  static const std::regex cap_re(R"(^\tCapabilities: \[([0-9a-f]+)(?: v([0-9]+))?\] (.*)$)");
  std::string current;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t nl = out.find('\n', start);
    std::string line = out.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? out.size() : nl + 1;
    std::smatch m;
    if (std::regex_search(line, m, dev_re)) {
      current = m[1];
      devs[current];
    } else if (std::regex_match(line, m, cap_re) && !current.empty()) {
      std::string text = m[3];
      if (text.rfind("<chain", 0) == 0 || text.rfind("<access denied>", 0) == 0) continue;
      devs[current].push_back(
          {static_cast<unsigned>(std::stoul(m[1], nullptr, 16)), m[2].matched ? std::stoi(m[2]) : -1, text});
    }
  }
  return devs;
}

std::string expected_prefix(const pci::Capability& c) {
  char buf[128];
  if (c.vsec) {
    std::snprintf(buf, sizeof buf, "Vendor Specific Information: ID=%04x Rev=%d Len=%03x", c.vsec->id, c.vsec->rev,
                  c.vsec->length);
    return buf;
  }
  if (c.dvsec) {
    std::snprintf(buf, sizeof buf, "Designated Vendor-Specific: Vendor=%04x ID=%04x Rev=%d Len=%d", c.dvsec->vendor,
                  c.dvsec->id, c.dvsec->rev, c.dvsec->length);
    return buf;
  }
  return pci::capability_name(c.kind, c.id);
}

// Compares one device; with `prefix_only` pmukit may stop early (it guards what lspci does not).
void compare(const pci::Device& ours, const std::vector<LspciCap>& theirs, bool prefix_only, const std::string& what) {
  SCOPED_TRACE(what + " " + ours.bdf.str());
  if (prefix_only)
    ASSERT_LE(ours.caps.size(), theirs.size());
  else
    ASSERT_EQ(ours.caps.size(), theirs.size());
  for (std::size_t i = 0; i < ours.caps.size(); ++i) {
    const auto& c = ours.caps[i];
    EXPECT_EQ(c.offset, theirs[i].offset) << "capability " << i;
    int version = c.kind == pci::CapKind::Extended ? c.version : -1;
    if (c.kind == pci::CapKind::Extended && c.version == 0) version = -1;  // lspci omits "v0"
    EXPECT_EQ(version, theirs[i].version) << "capability at " << std::hex << c.offset;
    EXPECT_EQ(theirs[i].text.rfind(expected_prefix(c), 0), 0u)
        << "at " << std::hex << c.offset << ": lspci says '" << theirs[i].text << "', pmukit '" << expected_prefix(c)
        << "'";
  }
}

bool have_lspci() {
  return test::run_program("lspci", {"--version"}).status == 0;
}

}  // namespace

TEST(LspciAgreement, EveryFixtureThroughSysfs) {
  if (!have_lspci()) GTEST_SKIP() << "lspci is not installed";
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  auto fixtures = test::pci_fixtures();
  test::write_fixtures(b, fixtures);
  auto sysfs = (dir.path() / "sys/bus/pci").string();
  auto r = test::run_program("lspci", {"-A", "linux-sysfs", "-O", "sysfs.path=" + sysfs, "-D", "-vvv"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto theirs = parse_lspci(r.out);
  Machine m(MachineOptions{dir.path()});
  auto ours = pci::scan(m);
  ASSERT_EQ(ours.size(), fixtures.size());
  for (const auto& fx : fixtures) {
    const pci::Device* d = nullptr;
    for (const auto& o : ours)
      if (o.bdf == fx.device.bdf) d = &o;
    ASSERT_NE(d, nullptr) << fx.name;
    ASSERT_TRUE(theirs.count(d->bdf.str())) << fx.name;
    compare(*d, theirs[d->bdf.str()], !fx.well_formed, fx.name);
    EXPECT_EQ(d->warnings.empty(), fx.well_formed) << fx.name;
  }
}

TEST(LspciAgreement, EveryCorpusHexDump) {
  if (!have_lspci()) GTEST_SKIP() << "lspci is not installed";
  auto corpus = test::shared_dir() / "corpus" / "pci-hexdump";
  if (!std::filesystem::is_directory(corpus)) GTEST_SKIP() << corpus << " is absent";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    auto r = test::run_program("lspci", {"-F", entry.path().string(), "-D", "-vvv"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto theirs = parse_lspci(r.out);
    MachineOptions o;
    o.pci_dump = entry.path();
    Machine m(o);
    auto ours = pci::scan(m);
    ASSERT_EQ(ours.size(), theirs.size()) << entry.path();
    for (const auto& d : ours) compare(d, theirs[d.bdf.str()], false, entry.path().filename().string());
    ++files;
  }
  EXPECT_EQ(files, 5);
}
