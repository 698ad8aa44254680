// Refused hardware access gets a message that says what to do: missing driver, kernel lockdown,
// STRICT_DEVMEM. EPERM is produced for real with immutable files (chattr +i refuses writes even
// to root), so the paths run exactly as on a locked-down machine.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/access/physical_memory.h"
#include "pmukit/access/privilege.h"
#include "pmukit/access/register_window.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

// Makes a file immutable for the life of the object.
class Immutable {
 public:
  explicit Immutable(const std::filesystem::path& p) : path_(p) {
    ok_ = test::run_program("chattr", {"+i", p.string()}).status == 0;
  }
  ~Immutable() {
    if (ok_) test::run_program("chattr", {"-i", path_.string()});
  }
  bool ok() const { return ok_; }

 private:
  std::filesystem::path path_;
  bool ok_ = false;
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Privilege, HintsNameTheCauseAndTheWayOut) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  Machine m(MachineOptions{dir.path()});
  EXPECT_NE(access_hint(m, HardwareResource::Msr, ENOENT).find("modprobe msr"), std::string::npos);
  EXPECT_NE(access_hint(m, HardwareResource::DevMem, ENOENT).find("CONFIG_DEVMEM"), std::string::npos);
  EXPECT_NE(access_hint(m, HardwareResource::DevMem, EPERM).find("iomem=relaxed"), std::string::npos);
  b.write_text("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  EXPECT_EQ(lockdown_mode(m), "integrity");
  for (auto r : {HardwareResource::DevMem, HardwareResource::BarResource, HardwareResource::Msr,
                 HardwareResource::ConfigSpace}) {
    auto hint = access_hint(m, r, EPERM);
    EXPECT_NE(hint.find("kernel lockdown is [integrity]"), std::string::npos) << hint;
    EXPECT_NE(hint.find("--backend perf"), std::string::npos) << hint;
  }
  EXPECT_EQ(access_hint(m, HardwareResource::DevMem, EIO), "");
}

// A user who may not open a snapshot's device file is told that it is the file's mode, not a
// kernel's policy (the STRICT_DEVMEM hint was printed for it before).
TEST(Privilege, ASnapshotFileTheUserMayNotOpenSaysWhoMay) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  Machine m(MachineOptions{dir.path()});
  auto hint = access_hint(m, HardwareResource::DevMem, EACCES);
  EXPECT_NE(hint.find(fmt::format("does not let uid {} open it", ::geteuid())), std::string::npos) << hint;
  EXPECT_EQ(hint.find("STRICT_DEVMEM"), std::string::npos) << hint;
}

// A directory the user may not write in names the user and the directory.
TEST(Privilege, ADirectoryThatCannotBeCreatedNamesWhoAndWhere) {
  test::TempDir dir;
  auto locked = dir.path() / "locked";
  std::filesystem::create_directory(locked);
  std::filesystem::permissions(locked, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  if (::geteuid() == 0) {
    // root writes anywhere: a file where a directory must go gives the error instead.
    write_file(locked / "file", "");
    EXPECT_NE(message_of([&] {
                make_directories(locked / "file" / "x");
              }).find("cannot create the directory " + (locked / "file" / "x").string() + ": "),
              std::string::npos);
  } else {
    auto msg = message_of([&] { make_directories(locked / "a" / "b"); });
    EXPECT_NE(msg.find(fmt::format("uid {} may not write in {}", ::geteuid(), locked.string())), std::string::npos)
        << msg;
  }
  std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
}

TEST(Privilege, RefusedDevMemMappingExplainsStrictDevmem) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.write_phys32(0xc8aa2800, 0);
  Immutable lock(dir.path() / "dev/mem");
  if (!lock.ok() || ::geteuid() != 0) GTEST_SKIP() << "needs root and chattr";
  Machine m(MachineOptions{dir.path()});
  EXPECT_NO_THROW(m.memory().map(0xc8aa2800, 0x100, false));  // reading is still allowed
  auto msg = message_of([&] { m.memory().map(0xc8aa2800, 0x100, true); });
  EXPECT_NE(msg.find("0xc8aa2800+0x100: cannot map"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Operation not permitted"), std::string::npos) << msg;
  EXPECT_NE(msg.find("STRICT_DEVMEM"), std::string::npos) << msg;
}

TEST(Privilege, RefusedMsrWriteUnderLockdown) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.set_msr(0, 0x2000, 0);
  b.write_text("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  Immutable lock(dir.path() / "dev/cpu/0/msr");
  if (!lock.ok() || ::geteuid() != 0) GTEST_SKIP() << "needs root and chattr";
  Machine m(MachineOptions{dir.path()});
  EXPECT_EQ(m.msr(0).read(0x2000), 0u);
  auto msg = message_of([&] { m.msr(0).write(0x2000, 1); });
  EXPECT_NE(msg.find("dev/cpu/0/msr: open: Operation not permitted (kernel lockdown is [integrity]"), std::string::npos)
      << msg;
}

TEST(Privilege, RefusedConfigWriteSaysWhy) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  snapshot::PciDeviceSpec d;
  d.bdf = *Bdf::parse("0000:b0:00.0");
  d.config = snapshot::ConfigImage(0x1ded, 0x8000, 0x060400, 1);
  b.add_pci_device(d);
  Immutable lock(dir.path() / "sys/bus/pci/devices/0000:b0:00.0/config");
  if (!lock.ok() || ::geteuid() != 0) GTEST_SKIP() << "needs root and chattr";
  Machine m(MachineOptions{dir.path()});
  auto& cfg = m.pci().config(d.bdf);
  EXPECT_EQ(*cfg.read16(0), 0x1ded);
  auto msg = message_of([&] { cfg.write32(0x37c, 1); });
  EXPECT_NE(msg.find("0000:b0:00.0 @0x37c: config write failed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Operation not permitted"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--backend perf"), std::string::npos) << msg;
}
