// Dead peers: pmu-raw survives a pmu-sim that dies mid-run (restores without waiting on it and
// says why it stopped), pmu-sim survives a pmu-raw killed mid-run (the next client is served), and
// a second pmu-raw is told who holds the unit it asks for.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstddef>
#include <filesystem>
#include <fstream>

#include "pmukit/sim/clock.h"
#include "support/bundled_rig.h"
#include "support/sim_process.h"
#include "support/test_support.h"

using namespace pmukit;

namespace {

const std::vector<std::string> kRun = {
    "-e", "uncore_imc/cas_count_read/", "-e", "uncore_cha_1/event=0x1/", "-I", "100", "-x", ","};

// What a client killed between taking the clock page and letting it go leaves: its pid in the
// page's client field.
void plant_dead_client(const std::filesystem::path& root) {
  const auto page = root / "run/pmukit-sim/clock";
  int fd = ::open(page.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << page;
  const auto pid = static_cast<std::uint64_t>(test::dead_pid());
  ASSERT_EQ(::pwrite(fd, &pid, sizeof pid, offsetof(sim::ClockPage, client)), static_cast<ssize_t>(sizeof pid));
  ::close(fd);
}

}  // namespace

TEST(DeadSimulator, RawRestoresAndExitsWithAClearError) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  test::ToolProcess raw("pmu-raw", rig.args(kRun));
  ASSERT_FALSE(raw.read_line().empty()) << raw.err();
  sim.kill_now();
  EXPECT_EQ(raw.wait(), 1);
  EXPECT_NE(raw.err().find("pmu-raw: error: "), std::string::npos) << raw.err();
  EXPECT_NE(raw.err().find(") is gone"), std::string::npos) << raw.err();
  EXPECT_EQ(raw.err().find("did not answer"), std::string::npos) << raw.err();  // no 10 s wait
  EXPECT_EQ(rig.image_change(), "");
  EXPECT_TRUE(test::journals(rig.root).empty());  // every register went back
}

TEST(DeadSimulator, EmptyOrTruncatedClockPageIsAnErrorNamingIt) {
  test::BundledRig rig("spr-2s");
  const auto page = rig.root / "run/pmukit-sim/clock";
  std::filesystem::create_directories(page.parent_path());
  for (std::size_t size : {std::size_t{0}, std::size_t{63}}) {
    { std::ofstream(page, std::ios::binary) << std::string(size, '\0'); }
    auto r = test::run_tool("pmu-raw", rig.args({"-e", "uncore_imc_0/cas_count_read/", "--duration", "1"}));
    EXPECT_EQ(r.status, 1) << r.err;  // not 128 + SIGBUS
    EXPECT_NE(r.err.find(page.string() + ": " + std::to_string(size) + " bytes: not a pmu-sim clock page"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(rig.image_change(), "");
}

TEST(DeadClient, SimulatorServesTheNextClientAfterAKill) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  {
    test::ToolProcess raw("pmu-raw", rig.args(kRun));
    ASSERT_FALSE(raw.read_line().empty()) << raw.err();
    raw.signal(SIGKILL);
    EXPECT_EQ(raw.wait(), 128 + SIGKILL);
  }
  plant_dead_client(rig.root);  // as if the kill had come in the middle of a clock request
  auto next = test::run_tool("pmu-raw", rig.args({"-e", "uncore_imc_0/cas_count_read/", "--duration", "2", "-x", ","}));
  ASSERT_EQ(next.status, 0) << next.err;
  // 2 boxes (sockets 0 and 1) x 1e8 CAS/s x 2 s x 64 B = 24414.0625 MiB: virtual time moved.
  EXPECT_NE(next.out.find("24414.06,MiB,uncore_imc_0/cas_count_read/"), std::string::npos) << next.out;
  EXPECT_NE(next.err.find("registers from a run killed"), std::string::npos) << next.err;
  EXPECT_EQ(rig.image_change(), "");
}

TEST(DeadClient, SecondRunIsToldWhoHoldsTheLock) {
  test::BundledRig rig("spr-2s");
  test::SimProcess sim(rig.root);
  test::ToolProcess first("pmu-raw", rig.args(kRun));
  ASSERT_FALSE(first.read_line().empty()) << first.err();
  auto second = test::run_tool("pmu-raw", rig.args({"-e", "uncore_imc_0/cas_count_read/", "--duration", "1"}));
  EXPECT_EQ(second.status, 1);
  EXPECT_NE(second.err.find("pmu-raw: error: uncore_imc_0 is in use by pmu-raw (pid "), std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("--force"), std::string::npos) << second.err;
  first.signal(SIGINT);
  EXPECT_EQ(first.wait(), 128 + SIGINT) << first.err();  // ended by the signal, as perf stat
  EXPECT_EQ(rig.image_change(), "");
}
