// pmukit -- the platform database: CPU models, Intel box-type tables, PMU formats and named
// events, loaded from the JSON files of platforms/ (compiled into the library). Code asks the
// database; it never switches on a CPU model.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pmukit/families/coresight/coresight_programming.h"
#include "pmukit/families/intel/counter_constraints.h"
#include "pmukit/families/intel/iio_scheme.h"
#include "pmukit/families/intel/kernel_boxes.h"
#include "pmukit/platform/platform_index.h"
#include "pmukit/platform/soc_data.h"
#include "pmukit/syntax/pmu_description.h"

namespace pmukit::platform {

struct CpuModel {
  std::string vendor;  // /proc/cpuinfo vendor_id
  unsigned family = 0;
  std::vector<unsigned> models;
  std::string name;          // "spr"
  std::string description;   // "Intel Xeon (Sapphire Rapids)"
  std::string intel_uncore;  // box-type table name, "" if none
  std::string iio_map;       // IIO stack mapping scheme (iio_map()), "" if none
  std::string amd_uncore;    // AMD Zen generation of its uncore PMU kinds ("zen4": amd_l3_zen4, ...), "" if none
};

// Which filter fields an event uses, by its event code (the kernel's extra_regs, e.g.
// skx_uncore_cha_extra_regs): events whose config & event_mask == event use the fields of `mask`.
struct IntelFilterSelector {
  std::uint64_t event = 0;
  std::uint64_t event_mask = 0;
  std::uint64_t mask = 0;
};

// CHA-style filter register written from a config word (e.g. SPR CHA TID filter from config1;
// SKX CHA FILTER0/FILTER1 from config1's low and high halves).
struct IntelFilter {
  int term_config = 1;     // which config word feeds it
  std::uint64_t mask = 0;  // bits of that word it takes
  std::uint32_t msr = 0;   // filter MSR of box 0
  std::uint32_t box_stride = 0;
  int enable_bit = -1;  // config bit that makes an event use the filter (SPR CHA tid_en); -1: always
  // The high 32 bits go to a second register this far after the first (SKX CHA FILTER1 is
  // FILTER0 + 1, hswep_cbox_enable_event); 0: one register takes the whole value.
  std::uint32_t high_offset = 0;
  // Non-empty: an event uses the filter only for the fields its event code selects (and the
  // filter when it selects any), else as enable_bit says.
  std::vector<IntelFilterSelector> selectors;
};

struct IntelFixedCounter {
  std::uint64_t ctl_offset = 0;  // from the box control address
  std::uint64_t ctr_offset = 0;
  std::string note;
};

struct IntelBoxType {
  std::uint16_t type = 0;
  std::string name;                       // "imc"; kernel PMU uncore_<name>[_<box_id>]
  std::string pmu_kind;                   // key into pmu_kind()
  unsigned ctl_step = 0;                  // MMIO control stride override (8 for CXL types); 0: default
  std::optional<std::string> unreliable;  // why this type's discovery data is not to be trusted
  std::vector<std::string> ignored_in;    // table sources ("pci", "msr") whose units Linux ignores
  std::string ignore_note;
  std::optional<IntelFilter> filter;
  std::optional<IntelFixedCounter> fixed;
  std::string counter_constraints_name;           // the kernel table this type's events obey, "" if none
  std::optional<CounterConstraints> constraints;  // that table, resolved when the database is loaded
  std::optional<KernelBoxes> kernel;              // before the discovery tables: the kernel's fixed table of the type
};

struct IntelUncore {
  std::string name;
  std::string description;
  std::string unnamed_pmu;  // pmu kind for box types without a name
  std::map<std::uint16_t, IntelBoxType> box_types;
  std::optional<std::uint16_t> cha_count_type;  // box type whose count an MSR corrects
  std::optional<std::uint32_t> cha_count_msr;
  bool clear_global_freeze = false;            // DMR: global control freeze_all is set at power-on
  std::optional<PciSocketMap> pci_socket_map;  // kernel tables: which socket a PCI bus belongs to

  // Whether the model's boxes come from the kernel's fixed tables (it has no discovery tables).
  bool kernel_tables() const {
    for (const auto& [type, b] : box_types)
      if (b.kernel) return true;
    return false;
  }
  const IntelBoxType* box(std::uint16_t type) const {
    auto it = box_types.find(type);
    return it == box_types.end() ? nullptr : &it->second;
  }
};

// The kernel-vocabulary description of a PMU kind, with format strings still as text
// ("config:8-15,32-55"); the events layer parses them.
struct PmuKind {
  std::string kind;
  std::string description;
  // The platform a machine with this kind is, for kinds found on one platform only (the Grace
  // SCF): names an Arm machine, whose /proc/cpuinfo has no model the CPU table knows.
  struct Platform {
    std::string name, description;
  };
  std::optional<Platform> platform;
  std::map<std::string, std::string> formats;
  std::map<std::string, syntax::EventAlias> events;
  std::map<std::string, std::string> event_help;   // alias -> description
  std::map<std::string, std::string> format_help;  // format term -> what it selects
  std::optional<CoreSightProgramming> coresight;   // CoreSight kinds: config words -> registers
  // Intel kinds: the config bits the kernel keeps (its type's event_mask | event_mask_ext << 32);
  // the counter control takes config & this mask.
  std::optional<std::uint64_t> config_mask;
};

// A section of the SoC data (soc_data.h), each parsed on its own: root-port mapping asks for the
// RC mapping schemes without parsing the CoreSight, CMN and DesignWare tables. The order is that
// of PlatformIndex::kSocSections (the sections' top-level keys).
enum class SocSection { CoreSight, RcMaps, T410Blocks, DesignWare, Cmn };

class Database {
 public:
  // The built-in database from the embedded platforms/ files, parsed on first use and only what
  // a lookup needs (a tool pays for the CPU table and its machine's data, not for every platform:
  // parsing all of them was 80% of a small run's instructions): the CPU table; the file
  // platforms/index.json names for an Intel uncore table, IIO map, constraint table or SoC
  // section; the pmus/ file defining a kind. builtin_files() with from_files() checks them all at
  // once. Throws Error naming the file and the entry when the data is malformed.
  static const Database& builtin();
  // The embedded files builtin() parses, as (path below platforms/, JSON text); not the index.
  static std::vector<std::pair<std::string, std::string>> builtin_files();
  // A database from (path, JSON text) pairs, parsed and cross-checked now (every name another
  // entry refers to exists).
  static Database from_files(const std::vector<std::pair<std::string, std::string>>& files);
  // A database parsed on demand as builtin() is, from (path, JSON text) pairs that include
  // PlatformIndex::kPath; files outside the database (machines/, metrics/, sim/) are ignored.
  static Database on_demand(std::vector<std::pair<std::string, std::string>> files);

  Database();
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;

  const CpuModel* match_cpu(std::string_view vendor, unsigned family, unsigned model) const;
  const IntelUncore* intel_uncore(std::string_view name) const;
  const PmuKind* pmu_kind(std::string_view kind) const;
  // The IIO stack mapping scheme named `name` (platforms/intel/iio_*.json), null if none.
  const IioMapScheme* iio_map(std::string_view name) const;
  // An event constraint table (platforms/intel/counter_constraints.json) by name, null if none.
  const CounterConstraints* counter_constraints(std::string_view name) const;
  const std::vector<CpuModel>& cpus() const;
  // CoreSight match table, NVIDIA RC maps and blocks, DesignWare RAS DES, CMN (soc_data.h): all
  // of it, or at least `section` (whose files the index names).
  const SocData& soc() const;
  const SocData& soc(SocSection section) const;

  // The file platforms/index.json names for the uncore events perf knows on `cpu_model`
  // (platforms/perfmon/<x>_uncore_events.json; the events layer parses it), as its path below
  // platforms/ and its text; nullopt when the index names none (or for a from_files() database).
  // Throws Error when the index names a file that is not there.
  struct DataFile {
    std::string path;
    std::string_view text;
  };
  std::optional<DataFile> perfmon_events_file(std::string_view cpu_model) const;

 private:
  // Which files define which part of the database (by directory: cpus.json, intel/, pmus/, and
  // the SoC data of the other directories); a file defining another part's keys is an error.
  enum class Part { Cpus, Intel, Pmus, Soc };
  static Part part_of(std::string_view path);
  struct Pending;  // files of builtin() not parsed yet

  // lazy: a builtin() file parsed on demand, whose keys must belong to its directory's part.
  void load(const std::string& path, const std::string& text, bool lazy = false);
  std::unique_lock<std::mutex> lock_pending() const;
  void parse_part(Part part) const;
  void parse_file_of_kind(std::string_view kind) const;
  void parse_file(std::string_view path) const;
  bool parse_indexed(const PlatformIndex::Files& index, std::string_view name) const;
  // Each box type of `u` gets the constraint table it names (an unknown name is an error).
  void resolve_counter_constraints(IntelUncore& u) const;
  // counter_constraints() without taking the lock (the caller holds it).
  const CounterConstraints* find_constraints(std::string_view name) const;

  // Parsed on demand by const accessors (builtin() is one shared, logically constant database).
  mutable std::vector<CpuModel> cpus_;
  mutable std::map<std::string, IntelUncore, std::less<>> intel_;
  mutable std::map<std::string, PmuKind, std::less<>> pmus_;
  mutable std::deque<IioMapScheme> iio_maps_;  // deques: pointers handed out stay valid as files load
  mutable std::deque<CounterConstraints> constraints_;
  mutable SocData soc_;
  std::unique_ptr<Pending> pending_;  // null: everything parsed
};

}  // namespace pmukit::platform
