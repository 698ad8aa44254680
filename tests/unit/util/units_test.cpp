// byte_unit: the amounts of data perf's .unit files and Intel perfmon's ScaleUnit name.
#include <gtest/gtest.h>

#include "pmukit/util/units.h"

using namespace pmukit;

namespace {

TEST(ByteUnit, BinaryAndDecimalUnitsInBytes) {
  ASSERT_TRUE(byte_unit("MiB"));
  EXPECT_EQ(byte_unit("MiB")->bytes, 1048576.0);
  EXPECT_TRUE(byte_unit("MiB")->binary);
  EXPECT_EQ(byte_unit("Bytes")->bytes, 1.0);
  EXPECT_EQ(byte_unit("TiB")->bytes, 1099511627776.0);
  ASSERT_TRUE(byte_unit("GB"));
  EXPECT_EQ(byte_unit("GB")->bytes, 1e9);
  EXPECT_FALSE(byte_unit("GB")->binary);
  EXPECT_EQ(byte_unit("kB")->bytes, 1e3);
}

TEST(ByteUnit, NotAnAmountOfData) {
  EXPECT_FALSE(byte_unit(""));
  EXPECT_FALSE(byte_unit("GB/s"));
  EXPECT_FALSE(byte_unit("cycles"));
  EXPECT_FALSE(byte_unit("mib"));
}

}  // namespace
