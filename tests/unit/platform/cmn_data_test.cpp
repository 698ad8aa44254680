// The Arm CMN platform data: firmware IDs and part numbers as Linux arm-cmn.c lists them, type
// names as users type them, and a loader that rejects bad data naming the file.
#include <gtest/gtest.h>

#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"
#include "support/platform_files.h"

using namespace pmukit;
using platform::Database;

namespace {

const platform::CmnData& cmn() {
  return *Database::builtin().soc().cmn;
}

std::string load_error(const std::string& body) {
  return test::database_load_error({{"arm/bad.json", body}});
}

}  // namespace

// arm-cmn.c arm_cmn_acpi_match / arm_cmn_of_match and enum cmn_part: ARMHC600 = 0x434 (its root
// node a second resource), ARMHC650 = 0x436, ARMHC700 = 0x43c; arm,ci-700 = 0x43a; the CMN-600AE
// (0x438) is handled as a CMN-600.
TEST(CmnData, FirmwareIdsAndParts) {
  std::map<std::string, std::uint16_t> want = {{"ARMHC600", 0x434},    {"ARMHC650", 0x436},    {"ARMHC700", 0x43c},
                                               {"arm,cmn-600", 0x434}, {"arm,cmn-650", 0x436}, {"arm,cmn-700", 0x43c},
                                               {"arm,ci-700", 0x43a}};
  ASSERT_EQ(cmn().firmware.size(), want.size());
  for (const auto& f : cmn().firmware)
    EXPECT_EQ(f.part, want.at(f.acpi_hid.empty() ? f.dt_compatible : f.acpi_hid)) << f.acpi_hid << f.dt_compatible;
  EXPECT_EQ(cmn().firmware[0].root_node, "second_resource");
  EXPECT_EQ(cmn().part(0x438)->name, "CMN-600");
  EXPECT_EQ(cmn().part(0x43e), nullptr);  // CMN S3: another register layout
  // enum cmn_revision: CMN-600 r0px never shipped, so revision 0 is r1p0; CMN-650 r1p2 came last.
  EXPECT_EQ(cmn().part(0x434)->revision_name(0), "r1p0");
  EXPECT_EQ(cmn().part(0x436)->revision_name(4), "r1p2");
  EXPECT_EQ(cmn().part(0x43c)->revision_name(3), "r3p0");
  EXPECT_EQ(cmn().part(0x43c)->revision_name(9), "revision 9");
  // arm_cmn_dtc_domain(): por_dtm_unit_info at 0x910 on CMN-650/CI-700, 0x960 on CMN-700.
  EXPECT_EQ(cmn().part(0x436)->dtc_domain_register, 0x910u);
  EXPECT_EQ(cmn().part(0x43c)->dtc_domain_register, 0x960u);
  EXPECT_FALSE(cmn().part(0x434)->dtc_domain_register.has_value());
}

TEST(CmnData, TypeNamesAsUsersTypeThem) {
  using V = std::vector<std::uint16_t>;
  EXPECT_EQ(cmn().types_named("ccla"), V{0x105});
  EXPECT_EQ(cmn().types_named("CCLA"), V{0x105});
  EXPECT_EQ(cmn().types_named("0x105"), V{0x105});
  EXPECT_EQ(cmn().types_named("261"), V{0x105});
  EXPECT_EQ(cmn().types_named("HN-F"), V{0x5});
  EXPECT_EQ(cmn().types_named("hnf"), V{0x5});
  EXPECT_EQ(cmn().types_named("hn_f"), V{0x5});
  EXPECT_EQ(cmn().types_named("rnid"), (V{0xa, 0xd}));  // the kernel's rnid_ events count RN-I and RN-D
  EXPECT_EQ(cmn().types_named("dn"), V{0x1});           // and dn_ events the DVM node
  EXPECT_EQ(cmn().types_named("mxp"), V{0x6});
  EXPECT_TRUE(cmn().types_named("nosuch").empty());
  EXPECT_EQ(cmn().type_name(0x105), "CCLA");
  EXPECT_EQ(cmn().type_name(0x7777), "type 0x7777");
  EXPECT_EQ(cmn().device_type_name(0x1e), "CCG");  // arm_cmn_device_type()
}

TEST(CmnData, LoaderRejectsBadData) {
  const std::string part = R"({"part": "0x43c", "name": "X", "revisions": [], "child_offset_bits": 30,
                               "connect_info_ports": 2, "node_size": "0x4000"})";
  auto doc = [&](const std::string& firmware, const std::string& p) {
    return R"({"cmn": {"firmware": [)" + firmware + R"(], "pmu_name": "arm_cmn_{index}", "parts": [)" + p +
           R"(], "node_types": [], "device_types": {}}})";
  };
  EXPECT_EQ(load_error(doc(R"({"acpi": "ARMHC700", "part": "0x43c"})", part)), "");
  EXPECT_NE(load_error(doc(R"({"acpi": "ARMHC700", "part": "0x999"})", part)).find("names unknown part 0x999"),
            std::string::npos);
  EXPECT_NE(load_error(doc(R"({"acpi": "A", "devicetree": "b", "part": "0x43c"})", part)).find("exactly one"),
            std::string::npos);
  std::string wide = part;
  wide.replace(wide.find("30"), 2, "40");
  EXPECT_NE(load_error(doc("", wide)).find("platforms/arm/bad.json cmn part X: child_offset_bits 40 is outside 16..30"),
            std::string::npos)
      << load_error(doc("", wide));
}
