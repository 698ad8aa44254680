// ConfinedRoot: links and ".." stay inside the root (openat2 RESOLVE_IN_ROOT and the component
// walk, both), reads are bounded and never block, writes never go through a link. A canary
// outside the root (a file a hostile link points at) must never be read or changed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "pmukit/util/confined_root.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit;
namespace fs = std::filesystem;

namespace {

// Runs every test twice: with the kernel's openat2 and with the walk that replaces it.
class Confined : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!GetParam() && !ConfinedRoot::kernel_resolves()) GTEST_SKIP() << "this kernel has no openat2";
    ConfinedRoot::force_walk_for_tests(GetParam());
    fs::create_directories(root);
    fs::create_directories(outside);
    write_file(canary, "CANARY\n");
    canary_time = fs::last_write_time(canary);
  }
  void TearDown() override { ConfinedRoot::force_walk_for_tests(false); }

  void expect_canary_untouched() {
    EXPECT_EQ(read_file(canary), "CANARY\n");
    EXPECT_EQ(fs::last_write_time(canary), canary_time);
  }
  std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  test::TempDir dir;
  fs::path root = dir / "root";
  fs::path outside = dir / "outside";
  fs::path canary = outside / "canary";
  fs::file_time_type canary_time;
};

TEST_P(Confined, AbsoluteLinksResolveAgainstTheRoot) {
  // The link names the canary by its absolute host path; inside the root that path is another file.
  fs::create_symlink(canary, root / "abs");
  fs::create_directories(root / canary.parent_path().relative_path());
  write_file(root / canary.relative_path(), "inside\n");
  fs::create_symlink(canary.parent_path(), root / "dirlink");
  ConfinedRoot r(root);
  auto fd = r.open(root / "abs", O_RDONLY);
  ASSERT_TRUE(fd.fd) << errno_text(fd.err);
  char buf[16] = {};
  ASSERT_EQ(::read(fd.fd.get(), buf, sizeof buf), 7);
  EXPECT_STREQ(buf, "inside\n");
  EXPECT_EQ(r.resolve(root / "dirlink" / "canary"), root / canary.relative_path());
  expect_canary_untouched();
}

TEST_P(Confined, DotDotAndRelativeLinksStopAtTheRoot) {
  fs::create_directories(root / "a/b");
  write_file(root / "outside/canary", "inside\n");
  // ../../../.. climbs past the root on the host; inside, ".." of the root is the root.
  fs::create_symlink("../../../../../../../../outside/canary", root / "a/b/up");
  ConfinedRoot r(root);
  EXPECT_EQ(r.resolve(root / "a/b/up"), root / "outside/canary");
  auto fd = r.open(root / "a/../../../outside/canary", O_RDONLY);
  ASSERT_TRUE(fd.fd);
  EXPECT_EQ(r.resolve(root / "a/../../../outside/canary"), root / "outside/canary");
  expect_canary_untouched();
}

TEST_P(Confined, ALinkThatLeadsOutIsNamedAsSuch) {
  // Absent inside the root, present on the host: the error says the link leads out.
  fs::create_symlink(outside, root / "tables");
  ConfinedRoot r(root);
  auto res = r.open(root / "tables/canary", O_RDONLY);
  EXPECT_FALSE(res.fd);
  EXPECT_EQ(res.err, EXDEV);
  auto msg = error_of([&] { r.read_text(root / "tables/canary", 4096); });
  EXPECT_NE(msg.find("a link leads out of the machine root"), std::string::npos) << msg;
  EXPECT_NE(msg.find(canary.string()), std::string::npos) << msg;
  expect_canary_untouched();
}

TEST_P(Confined, LoopsFifosAndEndlessFilesAreErrorsNotHangs) {
  fs::create_symlink("loop2", root / "loop1");
  fs::create_symlink("loop1", root / "loop2");
  ASSERT_EQ(::mkfifo((root / "fifo").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", root / "zero");
  ConfinedRoot r(root);
  EXPECT_NE(error_of([&] { r.read_text(root / "loop1", 4096); }).find("loop1"), std::string::npos);
  auto fifo = error_of([&] { r.read_text(root / "fifo", 4096); });
  EXPECT_NE(fifo.find("is a FIFO, not a regular file"), std::string::npos) << fifo;
  // /dev/zero inside the root does not exist; the host's does: the link leads out.
  auto zero = error_of([&] { r.read_text(root / "zero", 4096); });
  EXPECT_NE(zero.find("leads out of the machine root"), std::string::npos) << zero;
  // The same rules on the host root: a FIFO or a device is never read as text.
  ConfinedRoot host("/");
  EXPECT_NE(error_of([&] { host.read_text("/dev/zero", 4096); }).find("character device"), std::string::npos);
  EXPECT_NE(error_of([&] { host.read_text(root / "fifo", 4096); }).find("FIFO"), std::string::npos);
}

TEST_P(Confined, ReadsAreBoundedAndFinalLinksRefusedInSnapshots) {
  write_file(root / "big", std::string(5000, 'x'));
  write_file(root / "small", "42\n");
  fs::create_symlink("small", root / "link");
  ConfinedRoot r(root);
  EXPECT_EQ(r.read_text(root / "big", 5000)->size(), 5000u);
  EXPECT_NE(error_of([&] { r.read_text(root / "big", 4096); }).find("longer than 4096 bytes"), std::string::npos);
  EXPECT_EQ(r.read_int(root / "small"), 42);
  EXPECT_EQ(r.read_text(root / "absent", 4096), std::nullopt);
  auto link = error_of([&] { r.read_text(root / "link", 4096); });
  EXPECT_NE(link.find("is a symbolic link"), std::string::npos) << link;
}

TEST_P(Confined, WritesNeverFollowALink) {
  fs::create_symlink(canary, root / "lock");
  fs::create_symlink(outside, root / "run");
  ConfinedRoot r(root);
  auto msg = error_of([&] { r.write_file(root / "lock", "pid\n"); });
  EXPECT_NE(msg.find("lock: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("link"), std::string::npos) << msg;
  // A directory link is followed only inside the root: the file lands below it, not in `outside`.
  r.write_file(root / "run/new", "x");
  EXPECT_FALSE(fs::exists(outside / "new"));
  EXPECT_TRUE(fs::exists(root / outside.relative_path() / "new"));
  r.create_directories(root / "run/deeper/still");
  EXPECT_FALSE(fs::exists(outside / "deeper"));
  expect_canary_untouched();
}

TEST_P(Confined, ListingsAreCapped) {
  for (int i = 0; i < 5; ++i) write_file(root / "d" / std::to_string(i), "");
  ConfinedRoot r(root);
  EXPECT_EQ(r.list(root / "d", 5)->size(), 5u);
  auto msg = error_of([&] { r.list(root / "d", 4); });
  EXPECT_NE(msg.find("more than 4 entries"), std::string::npos) << msg;
  EXPECT_EQ(r.list(root / "absent", 4), std::nullopt);
}

std::string mode_name(const ::testing::TestParamInfo<bool>& p) {
  return p.param ? "walk" : "openat2";
}
INSTANTIATE_TEST_SUITE_P(OpenatAndWalk, Confined, ::testing::Values(false, true), mode_name);

TEST(ConfinedRootPaths, BelowIsLexical) {
  ConfinedRoot r("/");
  EXPECT_TRUE(r.is_host());
  test::TempDir d;
  ConfinedRoot s(d.path());
  EXPECT_FALSE(s.is_host());
  EXPECT_EQ(s.below(d / "a/b"), fs::path("a/b"));
  EXPECT_EQ(s.below(d.path()), fs::path());
  EXPECT_EQ(s.below("/etc/passwd"), std::nullopt);
  EXPECT_EQ(s.below(d.path().string() + "x/y"), std::nullopt);  // a sibling with a longer name
  // ".." after the root is kept (it stops at the root when resolved), never normalised out of it.
  EXPECT_EQ(s.below(d / "a/../../../etc/passwd"), fs::path("a/../../../etc/passwd"));
}

}  // namespace
