// pmukit -- Intel IIO stacks: root bus, socket and PMU of every stack, read from config space the
// way the model's scheme says (platforms/intel/iio_*.json), each register once.
#include "pmukit/families/intel/iio_stacks.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "iio_kernel.h"
#include "pmukit/access/machine.h"
#include "pmukit/access/pci_access.h"
#include "pmukit/families/intel/iio_regs.h"
#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::discovery {

namespace iio = regs::intel_iio;

namespace {

constexpr std::uint16_t kIntel = 0x8086;

bool matches(const pci::Device& d, const platform::IioLocator& l) {
  return d.vendor_id == kIntel && d.device_id == l.device_id && (!l.dev || d.bdf.dev == *l.dev) &&
         (!l.fn || d.bdf.fn == *l.fn);
}

std::string where_of(const platform::IioLocator& l) {
  std::string s = fmt::format("8086:{:04x}", l.device_id);
  if (l.dev) s += fmt::format(" at device {:#x}", *l.dev);
  if (l.fn) s += fmt::format(" function {}", *l.fn);
  return s;
}

// Reads config registers through the machine's PciAccess, each (device, offset) at most once,
// and counts the reads. A failed read or an all-ones value is a warning naming both.
class RegisterReader {
 public:
  RegisterReader(Machine& machine, IioTopology& out) : machine_(machine), out_(out) {}

  std::optional<std::uint32_t> read(const Bdf& bdf, unsigned offset, std::string_view what) {
    auto key = std::pair{bdf, offset};
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    ++out_.config_reads;
    std::optional<std::uint32_t> v;
    try {
      v = machine_.pci().config(bdf).read32(offset);
    } catch (const Error&) {
      v = std::nullopt;
    }
    if (!v) {
      out_.warnings.push_back(
          fmt::format("{} @{:#x} ({}): unreadable (config space needs root beyond 64 bytes)", bdf.str(), offset, what));
    } else if (*v == iio::kAbsent) {
      out_.warnings.push_back(
          fmt::format("{} @{:#x} ({}): reads all ones: the register is not there", bdf.str(), offset, what));
      v = std::nullopt;
    }
    cache_[key] = v;
    return v;
  }

 private:
  Machine& machine_;
  IioTopology& out_;
  std::map<std::pair<Bdf, unsigned>, std::optional<std::uint32_t>> cache_;
};

struct Context {
  Machine& machine;
  const std::vector<pci::Device>& devices;
  const Topology& topo;
  const platform::IioMapScheme& s;
  IioTopology& out;
  RegisterReader reader;
  bool any_read = false;  // some mapping register could be read

  const pci::Device* device_at(const Bdf& b) const {
    auto it = std::lower_bound(devices.begin(), devices.end(), b,
                               [](const pci::Device& d, const Bdf& x) { return d.bdf < x; });
    return it != devices.end() && it->bdf == b ? &*it : nullptr;
  }
  std::optional<std::uint32_t> read(const Bdf& b, unsigned off, std::string_view what) {
    auto v = reader.read(b, off, what);
    any_read = any_read || v.has_value();
    return v;
  }
  // The same read as a value of register R (whose place is platform data).
  template <class R>
  std::optional<RegValue<R>> read_as(const Bdf& b, unsigned off, std::string_view what) {
    if (auto v = read(b, off, what)) return RegValue<R>{*v};
    return std::nullopt;
  }
};

// The die chop picks the table (SPR XCC/MCC); with one table there is nothing to pick.
void choose_table(Context& c) {
  const auto& s = c.s;
  if (!s.chop_device) {
    c.out.table = s.table_for(std::nullopt);
    c.out.table_source = fmt::format("{} table", c.out.table->name);
    return;
  }
  std::optional<unsigned> chop;
  std::string from;
  for (const auto& d : c.devices) {
    if (!matches(d, *s.chop_device)) continue;
    auto v = c.read_as<iio::Capid4>(d.bdf, s.chop_register, "CAPID4");
    if (!v) continue;
    unsigned mine = static_cast<unsigned>(iio::Capid4::PhysicalChop::get(*v));
    std::string here = fmt::format("PCU {} CAPID4 @{:#x} = {:#010x}", d.bdf.str(), s.chop_register, v->raw);
    if (!chop) {
      chop = mine, from = here;
    } else if (*chop != mine) {
      c.out.warnings.push_back(
          fmt::format("{} gives die chop {:#04b}, but {} gives {:#04b}: using the first", here, mine, from, *chop));
    }
  }
  if (!chop) {
    c.out.warnings.push_back(fmt::format("no readable PCU {} with CAPID4: the die chop that chooses among the {} "
                                         "tables is unknown, so no stack gets an IIO PMU",
                                         where_of(*s.chop_device), s.name));
    return;
  }
  c.out.table = s.table_for(chop);
  if (!c.out.table) {
    c.out.warnings.push_back(fmt::format("{}: die chop {:#04b} selects none of the {} tables: no stack gets an IIO PMU",
                                         from, *chop, s.name));
    return;
  }
  c.out.table_source = fmt::format("{} table: die chop {:#04b} from {}", c.out.table->name, *chop, from);
}

// The socket of a UBOX: the node whose GIDNIDMAP group equals its own node id (Linux
// snbep_pci2phy_map_init / topology_gidnid_map).
std::optional<int> socket_from_gidnidmap(Context& c, const pci::Device& l) {
  auto nodeid = c.read_as<iio::CpuNodeId>(l.bdf, c.s.nodeid_register, "CPUNODEID");
  auto map = c.read_as<iio::GidNidMap>(l.bdf, c.s.gidnidmap_register, "GIDNIDMAP");
  if (!nodeid || !map) return std::nullopt;
  unsigned node = static_cast<unsigned>(iio::CpuNodeId::Local::get(*nodeid));
  for (unsigned i = 0; i < iio::kGidNidMapSockets; ++i)
    if (iio::gidnidmap_node(*map, i) == node) return static_cast<int>(i);
  c.out.warnings.push_back(
      fmt::format("{}: node id {} is in no GIDNIDMAP group ({:#x}): socket unknown", l.bdf.str(), node, map->raw));
  return std::nullopt;
}

// The package from SAD_CONTROL_CFG of device 0 function 0 on `bus` (PCM get_cpu_bus).
std::optional<int> socket_from_sad(Context& c, std::uint32_t domain, std::uint8_t bus, const std::string& why) {
  Bdf b{domain, bus, 0, 0};
  if (!c.device_at(b)) {
    c.out.warnings.push_back(
        fmt::format("{}: no device {} to read SAD_CONTROL_CFG from: socket unknown", why, b.str()));
    return std::nullopt;
  }
  auto v = c.read_as<iio::SadControlCfg>(b, c.s.sad_control, "SAD_CONTROL_CFG");
  if (!v) return std::nullopt;
  return static_cast<int>(iio::SadControlCfg::Socket::get(*v));
}

void add_stack(Context& c, IioStack st) {
  for (const auto& o : c.out.stacks) {
    if (o.socket != st.socket || o.entry != st.entry || o.socket < 0) continue;
    if (o.domain != st.domain || o.root_bus != st.root_bus)
      c.out.warnings.push_back(
          fmt::format("socket {} entry {}: {} gives root bus {:04x}:{:02x}, {} gives {:04x}:{:02x}: "
                      "keeping the first",
                      st.socket, st.entry, o.source, o.domain, o.root_bus, st.source, st.domain, st.root_bus));
    return;
  }
  c.out.stacks.push_back(std::move(st));
}

// Where CPUBUSNO is read: the located device, or the scheme's function on its bus when that exists
// (never a config read of a function the walk did not find).
std::optional<Bdf> cpubusno_holder(Context& c, const pci::Device& l) {
  if (!c.s.cpubusno_function) return l.bdf;
  Bdf at{l.bdf.domain, l.bdf.bus, static_cast<std::uint8_t>(c.s.cpubusno_function->first),
         static_cast<std::uint8_t>(c.s.cpubusno_function->second)};
  if (c.device_at(at)) return at;
  c.out.warnings.push_back(
      fmt::format("{}: no function {} to read CPUBUSNO from: its stacks are unknown", l.bdf.str(), at.str()));
  return std::nullopt;
}

void read_cpubusno(Context& c, const pci::Device& l, int order) {
  const auto& s = c.s;
  const auto holder = cpubusno_holder(c, l);
  if (!holder) return;
  std::optional<RegValue<iio::CpuBusNoValid>> valid;
  if (s.cpubusno_valid && !(valid = c.read_as<iio::CpuBusNoValid>(*holder, *s.cpubusno_valid, "CPUBUSNO_VALID")))
    return;
  std::vector<RegValue<iio::CpuBusNo>> dwords;
  for (std::size_t k = 0; k < s.cpubusno.size(); ++k) {
    auto v = c.read_as<iio::CpuBusNo>(*holder, s.cpubusno[k], "CPUBUSNO");
    if (!v) return;
    dwords.push_back(*v);
  }
  std::vector<unsigned> entries;
  for (unsigned e = 0; e < dwords.size() * iio::kCpuBusNoEntriesPerDword; ++e) {
    std::uint8_t bus = iio::cpubusno_entry(dwords[e / iio::kCpuBusNoEntriesPerDword], e);
    const auto* te = c.out.table ? c.out.table->entry(e) : nullptr;
    if (valid ? !iio::cpubusno_valid(*valid, e) : (!te || (bus == 0 && te->pmu != s.zero_bus_pmu))) continue;
    entries.push_back(e);
  }
  if (entries.empty()) {
    c.out.warnings.push_back(fmt::format("{}: no CPUBUSNO entry is in use", l.bdf.str()));
    return;
  }
  auto bus_of = [&](unsigned e) { return iio::cpubusno_entry(dwords[e / iio::kCpuBusNoEntriesPerDword], e); };
  std::optional<int> socket = s.socket_from == "gidnidmap"
                                  ? socket_from_gidnidmap(c, l)
                                  : socket_from_sad(c, l.bdf.domain, bus_of(entries.front()), l.bdf.str());
  if (!socket) socket = iio_socket_fallback(c.topo, l, order, c.out.warnings);
  for (unsigned e : entries) {
    IioStack st;
    st.socket = *socket;
    st.domain = l.bdf.domain;
    st.root_bus = bus_of(e);
    st.entry = e;
    unsigned reg = s.cpubusno[e / iio::kCpuBusNoEntriesPerDword];
    st.source = fmt::format("{} CPUBUSNO @{:#x} byte {}", holder->str(), reg, e % iio::kCpuBusNoEntriesPerDword);
    add_stack(c, std::move(st));
  }
}

void read_sad_control(Context& c, const pci::Device& l) {
  auto v = c.read_as<iio::SadControlCfg>(l.bdf, c.s.sad_control, "SAD_CONTROL_CFG");
  if (!v) return;
  IioStack st;
  st.socket = static_cast<int>(iio::SadControlCfg::Socket::get(*v));
  st.domain = l.bdf.domain;
  st.root_bus = l.bdf.bus;
  st.entry = static_cast<unsigned>(iio::SadControlCfg::StackId::get(*v));
  st.source = fmt::format("{} SAD_CONTROL_CFG @{:#x} = {:#x}", l.bdf.str(), c.s.sad_control, v->raw);
  add_stack(c, std::move(st));
}

// Table entries, PMUs, names, dies; warnings for entries the table does not list.
void resolve(Context& c) {
  auto& stacks = c.out.stacks;
  std::sort(stacks.begin(), stacks.end(), [](const IioStack& a, const IioStack& b) {
    return std::tie(a.socket, a.entry, a.domain, a.root_bus) < std::tie(b.socket, b.entry, b.domain, b.root_bus);
  });
  for (auto& st : stacks) {
    st.die = iio_logical_die(c.topo, st.socket);
    if (!c.out.table) continue;
    st.table_entry = c.out.table->entry(st.entry);
    if (!st.table_entry) {
      st.name = fmt::format("entry {}", st.entry);
      c.out.warnings.push_back(fmt::format("{} (root bus {:04x}:{:02x}, socket {}): entry {} is in use but the {} {} "
                                           "table lists no stack for it: devices there are not attributed",
                                           st.source, st.domain, st.root_bus, st.socket, st.entry, c.s.name,
                                           c.out.table->name));
      continue;
    }
    st.name = st.table_entry->name;
    st.pmu = st.table_entry->pmu;
    name_pmus(c.s, st);
  }
  for (auto& st : stacks) {
    if (!st.table_entry || !st.table_entry->part_of) continue;
    for (std::size_t i = 0; i < stacks.size(); ++i)
      if (stacks[i].socket == st.socket && stacks[i].domain == st.domain && stacks[i].entry == *st.table_entry->part_of)
        st.parent = i;
    if (!st.parent)
      c.out.warnings.push_back(fmt::format("{}: entry {} belongs to entry {}, which is not in use on socket {}",
                                           st.source, st.entry, *st.table_entry->part_of, st.socket));
  }
}

}  // namespace

std::string iio_pmu_name(const platform::IioMapScheme& scheme, unsigned pmu) {
  return platform::expand_pattern(scheme.pmu_pattern, {{"pmu", std::to_string(pmu)}});
}

void name_pmus(const platform::IioMapScheme& scheme, IioStack& st) {
  if (!st.pmu) return;
  st.pmu_name = iio_pmu_name(scheme, *st.pmu);
  if (!scheme.free_running_pattern.empty())
    st.free_running = platform::expand_pattern(scheme.free_running_pattern, {{"pmu", std::to_string(*st.pmu)}});
}

const platform::IioMapScheme* iio_scheme_for(const std::optional<CpuIdentity>& cpu) {
  if (!cpu || !cpu->x86_identity()) return nullptr;
  const auto& db = platform::Database::builtin();
  const auto* model = db.match_cpu(cpu->vendor, cpu->family, cpu->model);
  return model && !model->iio_map.empty() ? db.iio_map(model->iio_map) : nullptr;
}

IioTopology read_iio_topology(Machine& machine, const std::vector<pci::Device>& devices, const Topology& topology,
                              const platform::IioMapScheme& scheme) {
  IioTopology out;
  out.scheme = &scheme;
  out.route = "config space";
  Context c{machine, devices, topology, scheme, out, RegisterReader(machine, out)};
  choose_table(c);
  int order = 0;
  bool located = false;
  for (const auto& d : devices) {
    if (!matches(d, scheme.locator)) continue;
    located = true;
    if (scheme.route == "cpubusno")
      read_cpubusno(c, d, order++);
    else
      read_sad_control(c, d);
  }
  if (!located)
    out.warnings.push_back(fmt::format("no {} here: the {} IIO stacks cannot be read from config space",
                                       where_of(scheme.locator), scheme.name));
  resolve(c);
  if (scheme.kernel_mapping) cross_check_kernel(machine, topology, out, !c.any_read);
  return out;
}

}  // namespace pmukit::discovery
