// Hostile snapshots, PCI surface: the files libpci's sysfs method opens by itself (checked before
// it runs), BAR resourceN files and the other register files pmukit maps.
#include "hostile_support.h"

using namespace pmukit;
using pmukit::test::HostileSnapshot;

namespace {

// A device directory of the machine that has a BAR file (an Intel PMON discovery device).
std::string device_with_bar(const std::filesystem::path& root) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(root / "sys/bus/pci/devices"))
    if (std::filesystem::exists(e.path() / "resource0")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names.empty() ? "" : names.front();
}

TEST(HostilePci, FifosWhereLibpciReadsAttributes) {
  for (const char* file : {"resource", "vendor", "device", "class", "numa_node", "config"}) {
    HostileSnapshot h("spr-2s");
    std::string dev = test::first_pci_device(h.root);
    std::string rel = "sys/bus/pci/devices/" + dev + "/" + file;
    h.fifo(rel);
    h.expect_error(h.run("pmu-discover", {"--pci"}), "pmu-discover", rel + ": is a FIFO, not a regular file");
  }
}

TEST(HostilePci, AttributesAreCheckedInACrowdedDeviceDirectoryToo) {
  // Past 512 entries the directory is not listed whole; each attribute is stat'ed instead.
  HostileSnapshot h("spr-2s");
  std::string dir = "sys/bus/pci/devices/" + test::first_pci_device(h.root);
  for (int i = 0; i < 600; ++i) write_file(h.root_path(dir + "/extra" + std::to_string(i)), "");
  h.fifo(dir + "/vendor");
  h.expect_error(h.run("pmu-discover", {"--pci"}), "pmu-discover", dir + "/vendor: is a FIFO, not a regular file");
}

TEST(HostilePci, EndlessFilesWhereLibpciReadsAttributes) {
  for (const char* file : {"resource", "vendor", "config"}) {
    HostileSnapshot h("spr-2s");
    std::string rel = "sys/bus/pci/devices/" + test::first_pci_device(h.root) + "/" + file;
    h.link(rel, "/dev/zero");
    h.expect_error(h.run("pmu-discover", {"--pci"}), "pmu-discover", rel + ": is a symbolic link");
  }
}

TEST(HostilePci, DeviceLinksThatLeadOutAndNamesLibpciCannotScan) {
  {
    HostileSnapshot h("spr-2s");
    std::string rel = "sys/bus/pci/devices/" + test::first_pci_device(h.root);
    h.link(rel, h.canary);
    h.expect_error(h.run("pmu-discover", {}), "pmu-discover", "a link leads out of the machine root");
  }
  {
    // libpci's scan stops at this name after allocating a device it then leaks (ASan saw 33 KB).
    HostileSnapshot h("spr-2s");
    std::filesystem::create_directories(h.root_path("sys/bus/pci/devices/ffffffff:00:00.0"));
    h.expect_error(h.run("pmu-discover", {"--pci"}), "pmu-discover",
                   "'ffffffff:00:00.0' is not a PCI address (dddd:bb:dd.f with a domain up to 7fffffff)");
  }
  {
    HostileSnapshot h("spr-2s");
    h.link("sys", "/sys");  // the host's whole sysfs
    h.expect_error(h.run("pmu-discover", {}), "pmu-discover", "a link leads out of the machine root");
  }
}

TEST(HostilePci, DeviceLinksThatLeadElsewhereForTheHostKernel) {
  // "/proc" exists inside the root and on the host: libpci, resolving as the host kernel does,
  // would enter the host's /proc where pmukit checked the snapshot's.
  HostileSnapshot h("spr-2s");
  std::string rel = "sys/bus/pci/devices/" + test::first_pci_device(h.root);
  h.link(rel, "/proc");
  h.expect_error(h.run("pmu-discover", {"--pci"}), "pmu-discover",
                 rel + ": a link that leads out of the snapshot (/proc)");
}

TEST(HostilePci, ARootNamedThroughALinkIsTheSamePlace) {
  // The device links resolve to the same directories for libpci and for pmukit; only the root's
  // own name differs from its real path (comparing paths as text refused this tree).
  HostileSnapshot h("spr-2s");
  std::filesystem::path named = h.dir / "named";
  std::filesystem::create_directory_symlink(h.root, named);
  auto r = test::run_program("timeout", {"-s", "KILL", "30", std::string(PMUKIT_TOOLS_DIR) + "/pmu-discover",
                                         "--snapshot", named.string(), "--pci"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(test::first_pci_device(h.root)), std::string::npos) << r.out;
  h.expect_canary_untouched();
}

TEST(HostileRegisters, BarFilesThatAreFifosOrLinksAreNotMapped) {
  for (int kind = 0; kind < 3; ++kind) {
    HostileSnapshot h("spr-2s");
    std::string rel = "sys/bus/pci/devices/" + device_with_bar(h.root) + "/resource0";
    if (kind == 0) h.fifo(rel);
    if (kind == 1) h.link(rel, "/dev/zero");
    if (kind == 2) h.link(rel, h.canary / "mem");
    // One table of many cannot be read: a warning naming the file; the other tables still count.
    h.expect_warning(h.run("pmu-discover", {}), "pmu-discover",
                     kind == 0 ? rel + ": is a FIFO; in a snapshot, register files must be regular files"
                               : rel + ": is a symbolic link");
  }
}

TEST(HostileRegisters, DevMemAndMsrFilesThatAreLinksAreNeverWritten) {
  {
    // The live machine's /dev/mem behind a link in a snapshot would program this machine.
    HostileSnapshot h("grace-2s");
    h.link("dev/mem", h.canary / "mem");
    auto r = h.run("pmu-discover", {});
    h.expect_warning(r, "pmu-discover", "dev/mem: is a symbolic link");
    auto raw = h.run("pmu-raw", {"-e", "nvidia_scf_pmu_0/cycles/", "--duration", "0.01", "--backend", "direct"});
    EXPECT_NE(raw.status, 0);
    h.expect_canary_untouched();
  }
  {
    HostileSnapshot h("grace-2s");
    h.fifo("dev/mem");
    h.expect_warning(h.run("pmu-discover", {}), "pmu-discover", "dev/mem: is a FIFO");
  }
  {
    HostileSnapshot h("spr-2s");
    h.link("dev/cpu/0/msr", h.canary / "msr");
    auto raw = h.run("pmu-raw", {"-e", "uncore_cha_0/event=0x1/", "--duration", "0.01", "--backend", "direct"});
    h.expect_error(raw, "pmu-raw", "dev/cpu/0/msr: is a symbolic link");
  }
}

}  // namespace

namespace {

TEST(HostilePci, ResourceLinesLibpciCannotParse) {
  // libpci stops its scan at such a line with the file still open (a leak ASan reports).
  HostileSnapshot h("spr-2s");
  std::string rel = "sys/bus/pci/devices/" + test::first_pci_device(h.root) + "/resource";
  write_file(h.root_path(rel), "0x0000000000000000 0x0000000000000000 0x0000000000000000\nnot hex at all\n");
  h.expect_error(h.run("pmu-discover", {"--pci"}), "pmu-discover",
                 rel + ": line 2 'not hex at all' is not \"start end flags\" in hex");
}

}  // namespace
