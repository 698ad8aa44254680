// Machine: every path is a named parameter under the root; overrides; Bdf parsing.
#include <gtest/gtest.h>

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "pmukit/access/bdf.h"
#include "pmukit/access/machine.h"
#include "pmukit/util/error.h"
#include "support/test_support.h"

using namespace pmukit;

TEST(Machine, LivePathsAreTheDefaults) {
  Machine m;
  EXPECT_TRUE(m.is_live());
  EXPECT_EQ(m.param("sysfs.path"), "/sys/bus/pci");
  EXPECT_EQ(m.param("devmem.path"), "/dev/mem");
}

TEST(Machine, SnapshotPutsEveryPathUnderTheRoot) {
  Machine m(MachineOptions{"/tmp/snap"});
  EXPECT_FALSE(m.is_live());
  for (const auto& p : param_table()) {
    auto path = m.param(p.name).string();
    EXPECT_EQ(path.rfind("/tmp/snap/", 0), 0u) << p.name << " -> " << path;
  }
  EXPECT_EQ(m.param("acpi.path"), "/tmp/snap/sys/firmware/acpi/tables");
}

TEST(Machine, OverridesAreUsedAsGivenAndUnknownNamesRejected) {
  MachineOptions o{"/tmp/snap"};
  o.overrides["devmem.path"] = "/elsewhere/mem";
  Machine m(o);
  EXPECT_EQ(m.param("devmem.path"), "/elsewhere/mem");
  MachineOptions bad;
  bad.overrides["nonsense.path"] = "x";
  EXPECT_THROW(Machine{bad}, UsageError);
  EXPECT_THROW(m.set_param("nope", "x"), UsageError);
}

TEST(Bdf, ParsesAndPrintsLikeLspci) {
  auto b = Bdf::parse("000a:e0:1f.7");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->domain, 0xau);
  EXPECT_EQ(b->bus, 0xe0);
  EXPECT_EQ(b->dev, 0x1f);
  EXPECT_EQ(b->fn, 7);
  EXPECT_EQ(b->str(), "000a:e0:1f.7");
  EXPECT_EQ(Bdf::parse("27:01.1")->rid(), 0x2709);  // (bus << 8) | (dev << 3) | fn
  EXPECT_EQ(Bdf::parse("01:01.0")->rid(), 0x0108);
  EXPECT_FALSE(Bdf::parse("00:20.0"));  // device > 31
  EXPECT_FALSE(Bdf::parse("00:00.8"));
  EXPECT_FALSE(Bdf::parse("zz:00.0"));
  EXPECT_FALSE(Bdf::parse(""));
}

// A snapshot whose sys/ is this machine's sysfs (a bind mount) reaches live hardware through
// regular files (a BAR's resourceN is one): every register file there is refused as the live
// machine's. Run in a child with a mount namespace of its own; skipped where none can be made.
TEST(Machine, ARegisterFileOnThisMachinesSysfsIsRefused) {
  test::TempDir dir;
  const auto root = dir.path() / "m";
  std::filesystem::create_directories(root / "sys");
  pid_t child = ::fork();
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("/sys", (root / "sys").c_str(), nullptr, MS_BIND, nullptr) != 0)
      ::_exit(77);
    Machine m(MachineOptions{root});
    try {
      m.open_register(root / "sys/devices/system/cpu/online", false);
    } catch (const Error& e) {
      ::_exit(std::string(e.what()).find("a file of this machine's sysfs or procfs") != std::string::npos ? 0 : 2);
    }
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "no mount namespace here";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: opened as a register file; 2: refused for another reason";
}
