// pmukit -- perf event groups: open, enable, one-syscall reads.
#include "pmukit/perf/group.h"

#include <fmt/format.h>

#include "pmukit/perf/open_error.h"
#include "pmukit/util/error.h"

namespace pmukit::perf {

namespace {

constexpr std::uint64_t kReadFormat =
    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;

perf_event_attr make_attr(const Counter& c, const Target& target, bool leader) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = c.type;
  attr.config = c.config;
  attr.config1 = c.config1;
  attr.config2 = c.config2;
  attr.read_format = kReadFormat;
  attr.disabled = leader ? 1 : 0;  // members follow the leader: one enable starts them all
  attr.inherit = target.inherit ? 1 : 0;
  attr.exclude_user = c.exclude_user ? 1 : 0;
  attr.exclude_kernel = c.exclude_kernel ? 1 : 0;
  attr.exclude_hv = c.exclude_hv ? 1 : 0;
  attr.exclude_idle = c.exclude_idle ? 1 : 0;
  attr.pinned = leader && c.pinned ? 1 : 0;
  attr.exclusive = leader && c.exclusive ? 1 : 0;
  return attr;
}

}  // namespace

std::uint64_t scale_count(std::uint64_t value, std::uint64_t enabled, std::uint64_t running) {
  if (running == 0) return 0;
  if (running >= enabled) return value;
  return static_cast<std::uint64_t>(static_cast<double>(value) * static_cast<double>(enabled) /
                                    static_cast<double>(running));
}

double GroupReading::running_percent() const {
  if (time_enabled == 0) return 0.0;
  return 100.0 * static_cast<double>(time_running) / static_cast<double>(time_enabled);
}

std::uint64_t GroupReading::scaled(std::size_t i) const {
  return scale_count(values.at(i), time_enabled, time_running);
}

Group::Group(const Machine& machine, std::vector<Counter> counters, Target target)
    : counters_(std::move(counters)), target_(target) {
  if (counters_.empty()) throw Error("perf group: no counters to open");
  fds_.reserve(counters_.size());
  ids_.reserve(counters_.size());
  for (std::size_t i = 0; i < counters_.size(); ++i) {
    const Counter& c = counters_[i];
    bool leader = i == 0;
    int group_fd = leader ? -1 : fds_.front().get();
    int fd = sys_perf_event_open(make_attr(c, target_, leader), target_.pid, target_.cpu, group_fd);
    if (fd < 0) {
      OpenAttempt attempt;
      attempt.event = c.name;
      attempt.pmu = c.pmu;
      attempt.type = c.type;
      attempt.pid = target_.pid;
      attempt.cpu = target_.cpu;
      attempt.excludes = c.has_excludes();
      if (!leader) attempt.group_leader = counters_.front().pmu;
      // Close the members opened so far before explaining: after EMFILE the explanation (and
      // anything it calls) would otherwise have no descriptor to work with.
      fds_.clear();
      throw Error(explain_open_error(-fd, machine, attempt));
    }
    fds_.emplace_back(fd);
    std::uint64_t id = 0;
    if (int rc = event_ioctl(fd, PERF_EVENT_IOC_ID, reinterpret_cast<unsigned long>(&id)); rc < 0)
      throw Error(fmt::format("event '{}': PERF_EVENT_IOC_ID: {}", c.name, errno_text(-rc)));
    ids_.push_back(id);
  }
  buf_.resize(3 + 2 * counters_.size());
}

void Group::group_ioctl(unsigned long request, const char* what) {
  if (int rc = event_ioctl(leader_fd(), request, PERF_IOC_FLAG_GROUP); rc < 0)
    throw Error(fmt::format("event '{}': {}: {}", counters_.front().name, what, errno_text(-rc)));
}

void Group::enable() {
  group_ioctl(PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE");
}
void Group::disable() {
  group_ioctl(PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE");
}
void Group::reset() {
  group_ioctl(PERF_EVENT_IOC_RESET, "PERF_EVENT_IOC_RESET");
}

GroupReading Group::read() {
  GroupReading r;
  read_into(r);
  return r;
}

void Group::read_into(GroupReading& out) {
  const std::string& leader = counters_.front().name;
  std::size_t bytes = buf_.size() * sizeof(std::uint64_t);
  long n = event_read(leader_fd(), buf_.data(), bytes);
  if (n < 0) throw Error(fmt::format("event '{}': read: {}", leader, errno_text(static_cast<int>(-n))));
  if (static_cast<std::size_t>(n) != bytes || buf_[0] != counters_.size())
    throw Error(fmt::format("event '{}': group read returned {} bytes for {} events, expected {}", leader, n,
                            n >= 8 ? buf_[0] : 0, counters_.size()));
  out.time_enabled = buf_[1];
  out.time_running = buf_[2];
  out.values.resize(counters_.size());
  // The kernel lists members in the order they joined, which is ours; the ids prove it.
  for (std::size_t k = 0; k < counters_.size(); ++k) {
    std::uint64_t value = buf_[3 + 2 * k], id = buf_[4 + 2 * k];
    std::size_t i = k;
    if (ids_[i] != id) {
      i = 0;
      while (i < ids_.size() && ids_[i] != id) ++i;
      if (i == ids_.size()) throw Error(fmt::format("event '{}': group read returned unknown event id {}", leader, id));
    }
    out.values[i] = value;
  }
}

}  // namespace pmukit::perf
