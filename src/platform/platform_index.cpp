// pmukit -- platforms/index.json: which file defines each named table and SoC section.
#include "pmukit/platform/platform_index.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"
#include "pmukit/util/json_fields.h"

namespace pmukit::platform {

namespace {

using json = nlohmann::json;

PlatformIndex::Files names(const json& doc, const char* key, const std::string& where) {
  PlatformIndex::Files out;
  if (!doc.contains(key)) return out;
  for (const auto& [name, file] : doc.at(key).items()) {
    if (!file.is_string()) throw Error(fmt::format("{} {} {}: the file is not a string", where, key, name));
    out.emplace(name, file.get<std::string>());
  }
  return out;
}

// Records that `path` defines `name` under `key`; a name defined in two files has no one file.
void define(PlatformIndex::Files& files, const char* key, const std::string& name, const std::string& path) {
  auto [it, inserted] = files.emplace(name, path);
  if (!inserted)
    throw Error(fmt::format("platforms/{}: {} '{}' is also defined in platforms/{}", path, key, name, it->second));
}

void define_named_list(PlatformIndex::Files& files, const json& doc, const char* key, const std::string& path) {
  if (!doc.contains(key)) return;
  for (const auto& entry : doc.at(key))
    define(files, key, json_string(entry, "name", fmt::format("platforms/{} {}", path, key)), path);
}

}  // namespace

PlatformIndex PlatformIndex::parse(std::string_view text) {
  const std::string where = fmt::format("platforms/{}", kPath);
  PlatformIndex index;
  try {
    const json doc = json::parse(text);
    index.intel_uncore = names(doc, "intel_uncore", where);
    index.iio_maps = names(doc, "iio_maps", where);
    index.counter_constraints = names(doc, "counter_constraints", where);
    index.perfmon_events = names(doc, "perfmon_events", where);
    if (doc.contains("soc"))
      for (const auto& [section, files] : doc.at("soc").items()) {
        if (std::find(std::begin(kSocSections), std::end(kSocSections), section) == std::end(kSocSections))
          throw Error(fmt::format("{} soc: '{}' is not a SoC section", where, section));
        auto& list = index.soc[section];
        for (const auto& f : files) list.push_back(f.get<std::string>());
        std::sort(list.begin(), list.end());
      }
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
  return index;
}

PlatformIndex PlatformIndex::of_files(const std::vector<std::pair<std::string, std::string>>& files) {
  PlatformIndex index;
  for (const auto& [path, text] : files) {
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::exception& e) {
      throw Error(fmt::format("platforms/{}: {}", path, e.what()));
    }
    if (!doc.is_object()) continue;
    if (doc.contains("box_types"))
      define(index.intel_uncore, "intel_uncore", json_string(doc, "name", "platforms/" + path), path);
    define_named_list(index.iio_maps, doc, "iio_maps", path);
    define_named_list(index.counter_constraints, doc, "counter_constraints", path);
    if (doc.contains("Events") && doc.contains("cpu_models"))
      for (const auto& model : doc.at("cpu_models"))
        define(index.perfmon_events, "perfmon_events", model.get<std::string>(), path);
    for (auto section : kSocSections)
      if (doc.contains(section)) index.soc[std::string(section)].push_back(path);
  }
  for (auto& [section, list] : index.soc) std::sort(list.begin(), list.end());
  return index;
}

std::vector<std::string> PlatformIndex::files() const {
  std::set<std::string> all;
  for (const Files* f : {&intel_uncore, &iio_maps, &counter_constraints, &perfmon_events})
    for (const auto& [name, file] : *f) all.insert(file);
  for (const auto& [section, list] : soc) all.insert(list.begin(), list.end());
  return {all.begin(), all.end()};
}

}  // namespace pmukit::platform
