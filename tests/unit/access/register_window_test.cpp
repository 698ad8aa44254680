// RegisterWindow: one mapping, bounds checks, read-only enforcement, hi-lo-hi, MMIORegister views.
#include <gtest/gtest.h>

#include "pmukit/access/register_window.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {
std::string make_file(const test::TempDir& dir, std::uint64_t size) {
  auto p = dir / "bar";
  snapshot::SnapshotBuilder b(dir.path());
  std::vector<std::uint8_t> zeros(size);
  b.write_text("/bar", std::string(size, '\0'));
  return (dir.path() / "bar").string();
}
}  // namespace

TEST(RegisterWindow, MapsUnalignedOffsetsFromThePageBase) {
  test::TempDir dir;
  auto file = make_file(dir, 0x4000);
  RegisterWindow w(file, 0x1080, 0x100, 0xc8aa1080, true);  // 0x1080 is not page aligned
  w.write32(0x10, 0xdeadbeef);
  w.write64(0x18, 0x0123456789abcdefull);
  RegisterWindow again(file, 0x1000, 0x1000, 0xc8aa1000, false);
  EXPECT_EQ(again.read32(0x90), 0xdeadbeefu);
  EXPECT_EQ(again.read64(0x98), 0x0123456789abcdefull);
  EXPECT_EQ(w.phys_base(), 0xc8aa1080u);
  EXPECT_TRUE(w.contains(0xc8aa1080, 0x100));
  EXPECT_FALSE(w.contains(0xc8aa1080, 0x101));
}

TEST(RegisterWindow, RejectsOutOfRangeAndUnalignedAccesses) {
  test::TempDir dir;
  RegisterWindow w(make_file(dir, 0x1000), 0, 0x40, 0, true);
  EXPECT_THROW(w.read32(0x40), Error);
  EXPECT_THROW(w.read64(0x3c), Error);
  EXPECT_THROW(w.read32(0x2), Error);
  EXPECT_THROW(w.write64(0x44, 1), Error);
  EXPECT_NO_THROW(w.read32(0x3c));
}

TEST(RegisterWindow, ReadOnlyWindowRefusesWrites) {
  test::TempDir dir;
  RegisterWindow w(make_file(dir, 0x1000), 0, 0x1000, 0, false);
  EXPECT_THROW(w.write32(0, 1), Error);
  EXPECT_THROW(w.write64_lohi(8, 1), Error);
}

TEST(RegisterWindow, RefusesAWindowPastTheEndOfARegularFile) {
  test::TempDir dir;
  auto file = make_file(dir, 0x1000);
  try {
    RegisterWindow w(file, 0x800, 0x1000, 0, false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("window needs"), std::string::npos) << e.what();
  }
}

TEST(RegisterWindow, MissingFileErrorNamesTheFile) {
  try {
    RegisterWindow w("/nonexistent/resource0", 0, 0x1000, 0, false);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/resource0"), std::string::npos);
  }
}

TEST(RegisterWindow, HiLoHiAndLoHiWriteRoundTrip) {
  test::TempDir dir;
  RegisterWindow w(make_file(dir, 0x1000), 0, 0x1000, 0, true);
  w.write64_lohi(0x100, 0xfedcba9876543210ull);
  EXPECT_EQ(w.read32(0x100), 0x76543210u);
  EXPECT_EQ(w.read32(0x104), 0xfedcba98u);
  EXPECT_EQ(w.read64_hilohi(0x100), 0xfedcba9876543210ull);
  MMIORegister64 atomic(w, 0x100, true), split(w, 0x100, false);
  EXPECT_EQ(atomic.read(), split.read());
  split.write(42);
  EXPECT_EQ(atomic.read(), 42u);
  MMIORegister32 r32(w, 0x104);
  EXPECT_EQ(r32.read(), 0u);
  EXPECT_EQ(r32.phys(), 0x104u);
}

TEST(RegisterWindow, CountsOneMmapPerWindow) {
  test::TempDir dir;
  auto file = make_file(dir, 0x4000);
  auto before = RegisterWindow::mmap_calls();
  RegisterWindow w(file, 0, 0x4000, 0, false);
  for (unsigned off = 0; off < 0x4000; off += 8) (void)w.read64(off);
  EXPECT_EQ(RegisterWindow::mmap_calls() - before, 1u);
}
