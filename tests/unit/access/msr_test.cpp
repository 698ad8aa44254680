// MsrDevice: snapshot files use one 8-byte slot per MSR; errors name the file and the MSR.
#include <gtest/gtest.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/msr.h"
#include "pmukit/snapshot/builder.h"
#include "pmukit/util/error.h"
#include "support/test_support.h"

using namespace pmukit;

TEST(Msr, ConsecutiveMsrsDoNotOverlapInASnapshot) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.set_msr(0, 0x2000, 0x1111111111111111ull);
  b.set_msr(0, 0x2001, 0x2222222222222222ull);
  Machine m(MachineOptions{dir.path()});
  ASSERT_TRUE(m.has_msr_device(0));
  MsrDevice& msr = m.msr(0);
  EXPECT_TRUE(msr.is_snapshot_file());
  EXPECT_EQ(msr.read(0x2000), 0x1111111111111111ull);
  EXPECT_EQ(msr.read(0x2001), 0x2222222222222222ull);
  msr.write(0x2000, 0xabc);
  EXPECT_EQ(msr.read(0x2001), 0x2222222222222222ull);
  EXPECT_EQ(msr.read(0x2000), 0xabcu);
  EXPECT_EQ(msr.offset_of(0x2001), 0x2001u * 8);
}

TEST(Msr, MissingDeviceSaysHowToGetIt) {
  test::TempDir dir;
  Machine m(MachineOptions{dir.path()});
  EXPECT_FALSE(m.has_msr_device(3));
  try {
    m.msr(3).read(0x10);
    FAIL();
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("dev/cpu/3/msr"), std::string::npos) << msg;
    EXPECT_NE(msg.find("modprobe msr"), std::string::npos) << msg;
  }
}

TEST(Msr, ReadPastTheEndIsAnError) {
  test::TempDir dir;
  snapshot::SnapshotBuilder b(dir.path());
  b.set_msr(0, 0x10, 1);
  Machine m(MachineOptions{dir.path()});
  EXPECT_FALSE(m.msr(0).try_read(0x20));
  EXPECT_THROW(m.msr(0).read(0x20), Error);
}
