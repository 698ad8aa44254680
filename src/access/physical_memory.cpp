// pmukit -- BAR resolution and the resourceN -> /dev/mem mapping order.
#include "pmukit/access/physical_memory.h"

#include <algorithm>
#include <cerrno>
#include <numeric>

#include <fmt/format.h>
#include <fmt/std.h>

#include "pmukit/access/machine.h"
#include "pmukit/access/privilege.h"
#include "pmukit/access/register_window.h"
#include "pmukit/util/error.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace pmukit {

PhysicalMemory::PhysicalMemory(const Machine& machine) : machine_(machine) {}
PhysicalMemory::~PhysicalMemory() = default;

const std::vector<BarRegion>& PhysicalMemory::bars() {
  if (bars_) return *bars_;
  bars_.emplace();
  const auto& files = machine_.files();
  auto dir = machine_.param("sysfs.path") / "devices";
  for (const auto& entry : files.list(dir, limits::kPciDevices).value_or(std::vector<DirEntry>{})) {
    auto bdf = Bdf::parse(entry.name);
    if (!bdf) continue;
    auto text = files.read_text(dir / entry.name / "resource", kAttributeLimit);
    if (!text) continue;
    int index = 0;
    for (std::string_view line : split(*text, '\n')) {
      if (index >= 6) break;  // lines 6+ are the ROM and bridge windows: no resourceN for them
      auto f = split(trim(line), ' ');
      if (f.size() >= 3) {
        auto start = parse_u64(f[0]), end = parse_u64(f[1]), flags = parse_u64(f[2]);
        if (start && end && flags && *end > *start && (*flags & 0x200))
          bars_->push_back(
              BarRegion{*bdf, index, *start, *end, *flags, dir / entry.name / fmt::format("resource{}", index)});
      }
      ++index;
    }
  }
  index_by_start();
  return *bars_;
}

void PhysicalMemory::index_by_start() {
  const auto& all = *bars_;
  by_start_.resize(all.size());
  std::iota(by_start_.begin(), by_start_.end(), std::size_t{0});
  std::stable_sort(by_start_.begin(), by_start_.end(),
                   [&](std::size_t a, std::size_t b) { return all[a].start < all[b].start; });
  highest_end_.clear();
  for (auto i : by_start_) highest_end_.push_back(std::max(all[i].end, highest_end_.empty() ? 0 : highest_end_.back()));
}

// BARs do not overlap on a sane machine, but sysfs is input: every BAR starting at or below
// `phys` whose end may still reach it is checked, and the first in bars() order wins.
const BarRegion* PhysicalMemory::find_bar(std::uint64_t phys, std::uint64_t len) {
  const auto& all = bars();
  auto past = std::upper_bound(by_start_.begin(), by_start_.end(), phys,
                               [&](std::uint64_t p, std::size_t i) { return p < all[i].start; });
  const BarRegion* first = nullptr;
  for (auto k = static_cast<std::size_t>(past - by_start_.begin()); k-- > 0 && highest_end_[k] >= phys;) {
    const BarRegion& b = all[by_start_[k]];
    if (b.contains(phys, len) && (!first || &b < first)) first = &b;
  }
  return first;
}

std::string PhysicalMemory::explain(const std::string& file, int err, bool devmem) const {
  return fmt::format("{}: {}{}", file, errno_text(err),
                     access_hint(machine_, devmem ? HardwareResource::DevMem : HardwareResource::BarResource, err));
}

std::unique_ptr<RegisterWindow> PhysicalMemory::map_bar(const BarRegion& bar, std::uint64_t offset, std::uint64_t len,
                                                        bool writable) {
  auto r = machine_.open_register(bar.resource_file, writable);
  if (!r.fd) throw SystemError(explain(bar.resource_file.string(), r.err, false), r.err);
  return std::make_unique<RegisterWindow>(r.fd.get(), bar.resource_file.string(), offset, len, bar.start + offset,
                                          writable);
}

std::unique_ptr<RegisterWindow> PhysicalMemory::map(std::uint64_t phys, std::uint64_t len, bool writable) {
  std::vector<std::string> tried;
  int first_err = 0;  // the errno of the first attempt that failed in a system call
  if (auto bar = find_bar(phys, len)) {
    try {
      return map_bar(*bar, phys - bar->start, len, writable);
    } catch (const SystemError& e) {
      first_err = e.code();
      tried.push_back(fmt::format("{} BAR{}: {}", bar->bdf.str(), bar->index, e.what()));
    } catch (const Error& e) {
      tried.push_back(fmt::format("{} BAR{}: {}", bar->bdf.str(), bar->index, e.what()));
    }
  } else {
    tried.push_back("no PCI BAR contains this range");
  }
  auto devmem = machine_.param("devmem.path");
  try {
    auto r = machine_.open_register(devmem, writable);
    if (!r.fd) throw SystemError(explain(devmem.string(), r.err, true), r.err);
    return std::make_unique<RegisterWindow>(r.fd.get(), devmem.string(), phys, len, phys, writable);
  } catch (const SystemError& e) {
    if (!first_err) first_err = e.code();
    tried.push_back(e.what());
  } catch (const Error& e) {
    tried.push_back(e.what());
  }
  std::string why;
  for (const auto& t : tried) why += (why.empty() ? "" : "; ") + t;
  auto message = fmt::format("{:#x}+{:#x}: cannot map: {}", phys, len, why);
  if (first_err) throw SystemError(message, first_err);
  throw Error(message);
}

}  // namespace pmukit
