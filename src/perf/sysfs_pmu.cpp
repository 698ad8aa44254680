// pmukit -- reading PMUs from the sysfs event_source tree.
#include "pmukit/perf/sysfs_pmu.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "pmukit/access/machine.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"
#include "pmukit/util/file.h"
#include "pmukit/util/limits.h"
#include "pmukit/util/text.h"

namespace fs = std::filesystem;

namespace pmukit::perf {

namespace {

[[noreturn]] void file_error(const fs::path& file, std::string_view reason) {
  throw Error(fmt::format("{}: {}", file.string(), reason));
}

// A file's text for a message: one line, at most 64 characters.
std::string shown(std::string_view text) {
  return text.size() > 64 ? std::string(text.substr(0, 64)) + "..." : std::string(text);
}

// The regular files of a directory (inside the machine root), sorted; empty when the directory
// does not exist.
std::vector<fs::path> files_in(const ConfinedRoot& files, const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : files.list(dir, limits::kDirEntries).value_or(std::vector<DirEntry>{})) {
    bool regular = e.type == DT_REG;
    if (e.type == DT_LNK || e.type == DT_UNKNOWN) {
      auto st = files.stat(dir / e.name);
      regular = st && S_ISREG(st->st_mode);
    }
    if (regular) out.push_back(dir / e.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A sysfs attribute: one page at most, a regular file, never a blocking read.
std::string read_text(const ConfinedRoot& files, const fs::path& file) {
  auto text = files.read_text(file, kAttributeLimit);
  if (!text) file_error(file, "cannot read");
  return *text;
}

double parse_scale(const fs::path& file, std::string_view text) {
  text = trim(text);
  double v = 0;
  // parse_double is locale-independent, like the C locale perf forces for these files.
  auto [ptr, ec] = parse_double(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    file_error(file, fmt::format("'{}' is not a scale factor", shown(text)));
  return v;
}

void read_formats(const ConfinedRoot& files, SysfsPmu& pmu) {
  for (const fs::path& file : files_in(files, pmu.dir / "format")) {
    std::string name = file.filename().string();
    try {
      pmu.desc.formats.emplace(name, syntax::parse_format(name, read_text(files, file)));
    } catch (const Error& e) {
      file_error(file, e.what());
    }
  }
}

// Splits "cas_count_read.scale" into the alias and the side file kind; kind "" for the alias.
std::pair<std::string, std::string> alias_file(const std::string& filename) {
  for (std::string_view kind : {".scale", ".unit", ".per-pkg", ".snapshot"}) {
    if (filename.size() > kind.size() && filename.ends_with(kind))
      return {filename.substr(0, filename.size() - kind.size()), std::string(kind.substr(1))};
  }
  return {filename, ""};
}

void read_aliases(const ConfinedRoot& root, SysfsPmu& pmu) {
  std::vector<fs::path> files = files_in(root, pmu.dir / "events");
  // Aliases first, then their side files, whatever order the directory lists them in.
  for (const fs::path& file : files) {
    auto [name, kind] = alias_file(file.filename().string());
    if (!kind.empty()) continue;
    std::string terms(trim(read_text(root, file)));
    try {
      syntax::parse_terms(terms);  // a broken alias is reported here, naming its file
    } catch (const UsageError& e) {
      file_error(file, e.what());
    }
    pmu.desc.aliases.emplace(name, syntax::EventAlias{name, std::move(terms), 1.0, ""});
  }
  for (const fs::path& file : files) {
    auto [name, kind] = alias_file(file.filename().string());
    auto alias = pmu.desc.aliases.find(name);
    if (kind.empty() || alias == pmu.desc.aliases.end()) continue;  // side file of no alias
    std::string text = read_text(root, file);
    if (kind == "scale") alias->second.scale = parse_scale(file, text);
    if (kind == "unit") alias->second.unit = std::string(trim(text));
    if (kind == "per-pkg" && trim(text) == "1") pmu.per_pkg.insert(name);
    if (kind == "snapshot" && trim(text) == "1") pmu.snapshot.insert(name);
  }
}

SysfsPmu read_pmu_dir(const ConfinedRoot& files, const fs::path& dir, std::string name) {
  SysfsPmu pmu;
  pmu.desc.name = std::move(name);
  pmu.dir = dir;

  fs::path type_file = dir / "type";
  auto type_text = files.read_line(type_file);
  if (!type_text) file_error(type_file, "missing or unreadable (every PMU has a type)");
  auto type = parse_u64(*type_text);
  if (!type || *type > 0xffffffffu)
    file_error(type_file, fmt::format("'{}' is not a PMU type number", shown(*type_text)));
  pmu.type = static_cast<std::uint32_t>(*type);

  for (const char* mask_name : {"cpumask", "cpus"}) {
    fs::path mask_file = dir / mask_name;
    auto text = files.read_line(mask_file);
    if (!text) continue;
    auto cpus = parse_cpu_list(*text);
    if (!cpus) file_error(mask_file, fmt::format("'{}' is not a CPU list", shown(*text)));
    pmu.cpumask = std::move(*cpus);
    break;
  }

  fs::path mux_file = dir / "perf_event_mux_interval_ms";
  if (auto text = files.read_line(mux_file)) {
    auto ms = parse_u64(*text);
    if (!ms || *ms > 0xffffffffu)
      file_error(mux_file, fmt::format("'{}' is not a number of milliseconds", shown(*text)));
    pmu.mux_interval_ms = static_cast<unsigned>(*ms);
  }

  read_formats(files, pmu);
  read_aliases(files, pmu);
  return pmu;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// perf_pmu__valid_suffix(): after the prefix, an optional '_' and then only digits.
bool has_instance_suffix(std::string_view pmu, std::string_view prefix) {
  if (!pmu.starts_with(prefix)) return false;
  std::string_view rest = pmu.substr(prefix.size());
  if (rest.starts_with('_')) rest.remove_prefix(1);
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), is_digit);
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      std::string_view na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
      while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

namespace {}  // namespace

std::vector<std::string> pmu_names(const Machine& machine) {
  const auto& files = machine.files();
  fs::path root = machine.param("events.path");
  std::vector<std::string> names;
  for (const auto& e : files.list(root, limits::kDirEntries).value_or(std::vector<DirEntry>{})) {
    bool dir = e.type == DT_DIR;
    if (e.type == DT_LNK || e.type == DT_UNKNOWN) dir = files.is_directory(root / e.name);
    if (dir) names.push_back(e.name);
  }
  std::sort(names.begin(), names.end(), natural_less);
  return names;
}

std::optional<SysfsPmu> read_pmu(const Machine& machine, std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos) return std::nullopt;
  fs::path dir = machine.param("events.path") / std::string(name);
  if (!machine.files().is_directory(dir)) return std::nullopt;
  return read_pmu_dir(machine.files(), dir, std::string(name));
}

std::vector<SysfsPmu> list_pmus(const Machine& machine, std::vector<PmuError>* broken) {
  fs::path root = machine.param("events.path");
  std::vector<SysfsPmu> pmus;
  for (auto& name : pmu_names(machine)) {
    try {
      pmus.push_back(read_pmu_dir(machine.files(), root / name, name));
    } catch (const Error& e) {
      if (!broken) throw;
      broken->push_back({name, e.what()});
    }
  }
  return pmus;
}

std::vector<SysfsPmu> find_pmus(const Machine& machine, std::string_view name) {
  if (auto exact = read_pmu(machine, name)) return {std::move(*exact)};
  fs::path root = machine.param("events.path");
  bool glob = name.find_first_of("*?[") != std::string_view::npos;
  std::string pattern(name);
  std::vector<SysfsPmu> out;
  // Match on names first: a large server has hundreds of PMUs, most with many aliases.
  for (const std::string& full : pmu_names(machine)) {
    // perf ignores the "uncore_" prefix when the user did not write it.
    std::string bare = full;
    if (bare.starts_with("uncore_") && !name.starts_with("uncore_")) bare.erase(0, 7);
    bool match = glob ? fnmatch(pattern.c_str(), full.c_str(), 0) == 0 || fnmatch(pattern.c_str(), bare.c_str(), 0) == 0
                      : has_instance_suffix(full, name) || has_instance_suffix(bare, name);
    if (match) out.push_back(read_pmu_dir(machine.files(), root / full, full));
  }
  return out;
}

std::vector<int> online_cpus(const Machine& machine) {
  fs::path file = machine.param("cpu.path") / "online";
  auto text = machine.files().read_line(file);
  if (!text) file_error(file, "missing or unreadable");
  auto cpus = parse_cpu_list(*text);
  if (!cpus || cpus->empty()) file_error(file, fmt::format("'{}' is not a CPU list", shown(*text)));
  return *cpus;
}

}  // namespace pmukit::perf
