// explain_open_error: the errnos this kernel really returns (EINVAL, ENOENT, EACCES, EMFILE),
// provoked for real, and the branches that need a PMU this machine lacks, on fake trees.
#include <grp.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "live_perf.h"
#include "pmu_tree.h"
#include "pmukit/perf/group.h"
#include "pmukit/perf/open_error.h"
#include "pmukit/util/file.h"
#include "support/test_support.h"

using namespace pmukit;
using namespace pmukit::perf;

namespace {

// Runs `fn` in a child process, as uid/gid 65534 when we are root, and returns what it returned
// (or the exception it threw, as "exception: <what>").
std::string in_child(const std::function<std::string()>& fn, bool unprivileged) {
  int p[2];
  if (::pipe(p) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    std::string out;
    if (unprivileged && ::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
         ::setresuid(65534, 65534, 65534) != 0))
      out = "could not drop privileges";
    if (out.empty()) {
      try {
        out = fn();
      } catch (const std::exception& e) {
        out = std::string("exception: ") + e.what();
      }
    }
    for (std::size_t done = 0; done < out.size();) {
      ssize_t n = ::write(p[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);  // no atexit handlers, no gtest teardown in the child
  }
  ::close(p[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(p[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

std::string open_error_of(const char* events, Target target) {
  Machine live = Machine::live();
  Group g(live, test::live_counters(events), target);
  return "opened";
}

int live_paranoid() {
  return static_cast<int>(try_read_int(Machine::live().param("kernel.path") / "perf_event_paranoid").value_or(99));
}

std::string live_devices() {
  return Machine::live().param("events.path").string();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST(OpenErrorLive, KernelAnswersEinvalAndEnoentAsDocumented) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = 9;    // msr
  attr.config = 1;  // APERF: not on this CPU
  EXPECT_EQ(sys_perf_event_open(attr, 0, -1, -1), -EINVAL);
  attr.config = 0;
  attr.exclude_kernel = 1;  // the msr PMU cannot filter by privilege level
  EXPECT_EQ(sys_perf_event_open(attr, 0, -1, -1), -EINVAL);
  attr.exclude_kernel = 0;
  attr.type = 0x7ffffff0;  // no PMU
  EXPECT_EQ(sys_perf_event_open(attr, 0, -1, -1), -ENOENT);
}

TEST(OpenErrorLive, BadConfigSaysToCheckTheFormat) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  std::string msg = in_child([] { return open_error_of("msr/event=0x1/", Target::on_cpu(0)); }, false);
  EXPECT_EQ(msg, "exception: event 'msr/event=0x1/': PMU 'msr' rejected the configuration (a term out "
                 "of range or not supported by this PMU); check the terms against " +
                     live_devices() + "/msr/format");
}

TEST(OpenErrorLive, ExcludeModifiersOnMsrSayToDropThem) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  std::string msg = in_child([] { return open_error_of("msr/tsc/k", Target::on_cpu(0)); }, false);
  EXPECT_EQ(msg, "exception: event 'msr/tsc/k': PMU 'msr' cannot count by privilege level: drop the "
                 "u/k/h/I modifiers (uncore and msr PMUs count everything)");
}

// cycles, instructions...: PERF_TYPE_HARDWARE has no sysfs PMU of its own to blame.
TEST(OpenError, GenericHardwareEventWithoutACorePmu) {
  Machine live = Machine::live();
  OpenAttempt a;
  a.event = "cycles";
  a.pmu = "cpu";
  a.type = PERF_TYPE_HARDWARE;
  EXPECT_EQ(explain_open_error(ENOENT, live, a),
            "event 'cycles': the CPU's core PMU does not count this generic hardware event here (no core PMU "
            "driver, or a virtual machine without a virtual PMU)");
}

TEST(OpenErrorLive, UnknownTypeSaysNoSuchPmu) {
  PMUKIT_REQUIRE_PERF_AND_MSR();
  Machine live = Machine::live();
  OpenAttempt a;
  a.event = "r1234";
  a.type = 0x7ffffff0;
  EXPECT_EQ(explain_open_error(ENOENT, live, a),
            "event 'r1234': kernel has no PMU with type 2147483632 (is its driver loaded? PMUs "
            "are listed in " +
                live_devices() + ")");
  EXPECT_EQ(explain_open_error(ENOENT, live, "uncore_imc_0/cas_count_read/"),
            "event 'uncore_imc_0/cas_count_read/': kernel has no PMU 'uncore_imc_0' (is its "
            "driver loaded? PMUs are listed in " +
                live_devices() + ")");
}

TEST(OpenErrorLive, SystemWideWithoutPrivilegeNamesParanoidAndTheFix) {
  if (auto why = test::perf_unavailable()) GTEST_SKIP() << *why;
  if (!std::filesystem::exists(live_devices() + "/msr")) GTEST_SKIP() << "no msr PMU";
  if (live_paranoid() <= 0) GTEST_SKIP() << "perf_event_paranoid allows everyone to count";
  std::string msg = in_child([] { return open_error_of("msr/tsc/", Target::on_cpu(0)); }, true);
  EXPECT_EQ(msg, "exception: event 'msr/tsc/': permission denied: kernel.perf_event_paranoid is " +
                     std::to_string(live_paranoid()) +
                     " and system-wide (and uncore) counting needs 0 or less; run as root, grant "
                     "CAP_PERFMON (setcap cap_perfmon+ep on the tool), or set sysctl "
                     "kernel.perf_event_paranoid=0");
}

TEST(OpenErrorLive, PerTaskAdviceIsTrueUnprivileged) {
  if (auto why = test::perf_unavailable()) GTEST_SKIP() << *why;
  if (live_paranoid() != 2) GTEST_SKIP() << "the check below is for perf_event_paranoid=2";
  // Counting the kernel too is refused, with the level that would allow it...
  std::string kernel = in_child([] { return open_error_of("task-clock", Target::task(0)); }, true);
  EXPECT_TRUE(contains(kernel, "per-task counting that includes the kernel needs 1 or less")) << kernel;
  // ...and user-only counting, which level 2 allows, really opens.
  EXPECT_EQ(in_child([] { return open_error_of("task-clock:u", Target::task(0)); }, true), "opened");
}

TEST(OpenErrorLive, RootDeniedPointsAtPolicyNotParanoid) {
  if (::geteuid() != 0) GTEST_SKIP() << "checks the message a root user gets";
  std::string msg = explain_open_error(EPERM, Machine::live(), "msr/tsc/");
  EXPECT_TRUE(contains(msg, "permission denied although running as root")) << msg;
  EXPECT_TRUE(contains(msg, "security module, seccomp filter or container policy")) << msg;
}

TEST(OpenErrorLive, TooManyOpenFilesGivesTheLimit) {
  if (auto why = test::perf_unavailable()) GTEST_SKIP() << *why;
  std::string msg = in_child(
      [] {
        rlimit lim{};
        ::getrlimit(RLIMIT_NOFILE, &lim);
        lim.rlim_cur = test::open_fd_count() + 2;
        if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) return std::string("setrlimit failed");
        std::string limit = std::to_string(lim.rlim_cur);
        try {
          open_error_of("task-clock:u,cpu-clock:u,task-clock:u,cpu-clock:u,task-clock:u,"
                        "cpu-clock:u,task-clock:u,cpu-clock:u",
                        Target::task(0));
          return std::string("opened");
        } catch (const Error& e) {
          return "limit " + limit + ": " + e.what();
        }
      },
      false);
  ASSERT_EQ(msg.rfind("limit ", 0), 0u) << msg;
  auto limit = msg.substr(6, msg.find(':') - 6);
  EXPECT_TRUE(contains(msg, "too many open files: every event on every CPU is one descriptor, "
                            "and the process limit of " +
                                limit + " is used up; raise it (ulimit -n)"))
      << msg;
}

class OpenErrorTree : public ::testing::Test {
 protected:
  void SetUp() override {
    test::add_spr_imc(b, "uncore_imc_0", "24");
    test::add_msr_and_software(b);
  }
  std::string explain(int err, OpenAttempt a) { return explain_open_error(err, machine, a); }
  OpenAttempt imc(int pid, int cpu) {
    OpenAttempt a;
    a.event = "uncore_imc_0/cas_count_read/";
    a.pmu = "uncore_imc_0";
    a.type = 24;
    a.pid = pid;
    a.cpu = cpu;
    return a;
  }
  test::TempDir dir;
  snapshot::SnapshotBuilder b{dir.path()};
  Machine machine{MachineOptions{dir.path()}};
  std::string devices = (dir.path() / "sys/bus/event_source/devices").string();
};

TEST_F(OpenErrorTree, UncorePerTaskIsSystemWideOnly) {
  EXPECT_EQ(explain(EINVAL, imc(4242, -1)),
            "event 'uncore_imc_0/cas_count_read/': PMU 'uncore_imc_0' counts system-wide only (it "
            "has a cpumask): count it on a CPU, not per task");
  EXPECT_EQ(explain(-EOPNOTSUPP, imc(4242, -1)),
            "event 'uncore_imc_0/cas_count_read/': PMU 'uncore_imc_0' does not support per-task "
            "counting; count it on a CPU");
}

TEST_F(OpenErrorTree, UncoreOnAnotherCpuNamesItsCpumask) {
  EXPECT_EQ(explain(EINVAL, imc(-1, 3)),
            "event 'uncore_imc_0/cas_count_read/': PMU 'uncore_imc_0' counts on CPU 0 (its "
            "cpumask), not on CPU 3");
  EXPECT_TRUE(contains(explain(EINVAL, imc(-1, 0)), "rejected the configuration"));
}

TEST_F(OpenErrorTree, GroupAcrossPmus) {
  OpenAttempt a = imc(-1, 0);
  a.group_leader = "msr";
  EXPECT_EQ(explain(EINVAL, a), "event 'uncore_imc_0/cas_count_read/': PMU 'uncore_imc_0' cannot join a group led by "
                                "PMU 'msr': a group counts on one PMU (plus software events); put them in separate "
                                "groups");
  OpenAttempt sw;
  sw.event = "cpu-clock";
  sw.pmu = "software";
  sw.cpu = 0;
  sw.group_leader = "uncore_imc_0";
  EXPECT_FALSE(contains(explain(EINVAL, sw), "cannot join"));
}

TEST_F(OpenErrorTree, KnownPmuUnknownEvent) {
  EXPECT_EQ(explain(ENOENT, imc(-1, 0)),
            "event 'uncore_imc_0/cas_count_read/': PMU 'uncore_imc_0' (type 24) does not know "
            "this event; check its terms against " +
                devices + "/uncore_imc_0/format and " + devices + "/uncore_imc_0/events");
  OpenAttempt by_type;
  by_type.event = "r3";
  by_type.type = 9;
  EXPECT_TRUE(contains(explain(ENOENT, by_type), "PMU 'msr' (type 9) does not know"));
}

TEST_F(OpenErrorTree, ParanoidValueComesFromTheMachine) {
  b.write_text("/proc/sys/kernel/perf_event_paranoid", "3\n");
  // mkdtemp made the root 0700; the unprivileged child must be able to read the tree.
  namespace fs = std::filesystem;
  fs::permissions(dir.path(),
                  fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::add);
  std::string root = dir.path().string();
  std::string msg = in_child(
      [&] {
        Machine m{MachineOptions{root}};
        OpenAttempt a;
        a.event = "task-clock:u";
        a.pmu = "software";
        a.pid = 0;
        a.excludes = true;
        return explain_open_error(EACCES, m, a);
      },
      true);
  EXPECT_EQ(msg, "event 'task-clock:u': permission denied: kernel.perf_event_paranoid is 3 and "
                 "per-task counting of user space needs 2 or less; run as root, grant CAP_PERFMON "
                 "(setcap cap_perfmon+ep on the tool), or set sysctl kernel.perf_event_paranoid=2");
  std::string unreadable = in_child(
      [&] {
        test::TempDir empty;
        Machine m{MachineOptions{empty.path()}};
        return explain_open_error(EACCES, m, "msr/tsc/");
      },
      true);
  EXPECT_TRUE(contains(unreadable, "proc/sys/kernel/perf_event_paranoid is unreadable and "
                                   "system-wide (and uncore) counting needs 0 or less"))
      << unreadable;
}

TEST_F(OpenErrorTree, OtherErrnos) {
  EXPECT_EQ(explain(EBUSY, imc(-1, 0)),
            "event 'uncore_imc_0/cas_count_read/': PMU 'uncore_imc_0' is busy: another user (a "
            "pinned or exclusive perf session, another pmukit, or a driver such as the NMI "
            "watchdog) holds its counters; stop it and retry");
  OpenAttempt task = imc(4242, -1);
  EXPECT_EQ(explain(ESRCH, task), "event 'uncore_imc_0/cas_count_read/': no process 4242 to count");
  EXPECT_EQ(explain(ENODEV, imc(-1, 7)),
            "event 'uncore_imc_0/cas_count_read/': PMU 'uncore_imc_0' cannot count on CPU 7 "
            "(offline, or not one of its CPUs)");
  EXPECT_EQ(explain(EFAULT, imc(-1, 0)), "event 'uncore_imc_0/cas_count_read/': perf_event_open failed: Bad address");
  EXPECT_TRUE(contains(explain(EMFILE, imc(-1, 0)), "raise it (ulimit -n)"));
}
