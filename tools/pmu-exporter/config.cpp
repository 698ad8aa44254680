// pmu-exporter -- the configuration file.
#include "config.h"

#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmukit/util/error.h"

namespace pmukit::exporter {

namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& where, const std::string& why) {
  throw Error(fmt::format("{}: {}: {}", path.string(), where, why));
}

void check_members(const std::filesystem::path& path, const json& object, const std::string& where,
                   const std::set<std::string>& known) {
  if (!object.is_object()) bad(path, where, "expected an object");
  for (const auto& [key, value] : object.items())
    if (!known.count(key)) bad(path, where.empty() ? key : where + "." + key, "unknown member");
}

Granularity parse_granularity(const std::filesystem::path& path, const std::string& where, const json& v) {
  if (v == "per-box") return Granularity::PerBox;
  if (v == "per-socket") return Granularity::PerSocket;
  bad(path, where, "expected \"per-box\" or \"per-socket\"");
}

EventConfig parse_event(const std::filesystem::path& path, const std::string& where, const json& v) {
  EventConfig e;
  if (v.is_string()) {
    e.event = v.get<std::string>();
    return e;
  }
  check_members(path, v, where, {"event", "name", "bytes_per_count", "device", "granularity"});
  if (!v.contains("event") || !v["event"].is_string()) bad(path, where + ".event", "expected an event (text)");
  e.event = v["event"].get<std::string>();
  if (v.contains("name")) e.name = v["name"].get<std::string>();
  if (v.contains("device")) e.device = v["device"].get<std::string>();
  if (v.contains("bytes_per_count")) {
    if (!v["bytes_per_count"].is_number() || v["bytes_per_count"].get<double>() <= 0)
      bad(path, where + ".bytes_per_count", "expected a positive number");
    e.bytes_per_count = v["bytes_per_count"].get<double>();
  }
  if (v.contains("granularity")) e.granularity = parse_granularity(path, where + ".granularity", v["granularity"]);
  return e;
}

std::uint64_t whole(const std::filesystem::path& path, const std::string& where, const json& v, std::uint64_t lo,
                    std::uint64_t hi) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
    bad(path, where, fmt::format("expected a whole number in [{}, {}]", lo, hi));
  return v.get<std::uint64_t>();
}

void parse_lists(const std::filesystem::path& path, const json& doc, Config& c) {
  if (doc.contains("events")) {
    if (!doc["events"].is_array()) bad(path, "events", "expected a list");
    for (std::size_t i = 0; i < doc["events"].size(); ++i)
      c.events.push_back(parse_event(path, fmt::format("events[{}]", i), doc["events"][i]));
  }
  if (doc.contains("metrics")) c.metrics = doc["metrics"].get<std::vector<std::string>>();
  if (doc.contains("event_files")) c.event_files = doc["event_files"].get<std::vector<std::string>>();
  if (doc.contains("metric_params")) c.metric_params = doc["metric_params"].get<std::map<std::string, double>>();
  if (c.events.empty() && c.metrics.empty()) bad(path, "events", "nothing to count: give events or metrics");
}

void parse_settings(const std::filesystem::path& path, const json& doc, Config& c) {
  if (doc.contains("listen")) {
    if (!doc["listen"].is_string()) bad(path, "listen", "expected \"HOST:PORT\"");
    parse_listen(doc["listen"].get<std::string>(), fmt::format("{}: listen", path.string()), c);
  }
  if (doc.contains("read_interval_ms"))
    c.read_interval_ms = whole(path, "read_interval_ms", doc["read_interval_ms"], 10, 60000);
  if (doc.contains("metric_window_s"))
    c.metric_window_s = whole(path, "metric_window_s", doc["metric_window_s"], 1, 3600);
  if (doc.contains("granularity")) c.granularity = parse_granularity(path, "granularity", doc["granularity"]);
  if (doc.contains("timestamps")) c.timestamps = doc["timestamps"].get<bool>();
  if (doc.contains("force")) c.force = doc["force"].get<bool>();
  if (doc.contains("max_connections"))
    c.http.max_connections = whole(path, "max_connections", doc["max_connections"], 1, 65536);
  if (doc.contains("request_timeout_ms"))
    c.http.request_timeout_ms = whole(path, "request_timeout_ms", doc["request_timeout_ms"], 10, 3'600'000);
  if (doc.contains("idle_timeout_ms"))
    c.http.idle_timeout_ms = whole(path, "idle_timeout_ms", doc["idle_timeout_ms"], 10, 3'600'000);
  if (doc.contains("naming")) {
    auto n = naming(doc["naming"].get<std::string>());
    if (!n) bad(path, "naming", "expected \"pmukit\" or \"pcm\"");
    set_naming(c, *n);
  }
  if (doc.contains("backend")) {
    auto mode = counting::backend_mode(doc["backend"].get<std::string>());
    if (!mode) bad(path, "backend", "expected \"auto\", \"direct\" or \"perf\"");
    c.backend = *mode;
  }
}

}  // namespace

void parse_listen(const std::string& text, const std::string& what, Config& c) {
  auto colon = text.rfind(':');
  std::string host = colon == std::string::npos ? "" : text.substr(0, colon);
  std::string port = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  bool digits = !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(port) > 65535)
    throw Error(
        fmt::format("{}: '{}': expected HOST:PORT (127.0.0.1:9739, [::1]:9739, :9739 for every address)", what, text));
  c.listen_host = host.empty() ? "0.0.0.0" : host;
  c.listen_port = static_cast<int>(std::stoul(port));
  c.listen_given = true;
}

std::optional<Naming> naming(const std::string& text) {
  if (text == "pmukit") return Naming::Pmukit;
  if (text == "pcm") return Naming::Pcm;
  return std::nullopt;
}

void set_naming(Config& c, Naming n) {
  c.naming = n;
  if (!c.listen_given) c.listen_port = n == Naming::Pcm ? kPcmPort : kPort;
}

Config load_config(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw_errno(path.string(), errno);
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too large (406)
    throw Error(fmt::format("{}: not JSON: {}", path.string(), e.what()));
  }
  check_members(path, doc, "",
                {"listen", "naming", "read_interval_ms", "metric_window_s", "granularity", "timestamps", "backend",
                 "force", "events", "metrics", "metric_params", "event_files", "max_connections", "request_timeout_ms",
                 "idle_timeout_ms"});
  Config c;
  try {
    parse_settings(path, doc, c);
    parse_lists(path, doc, c);
  } catch (const json::exception& e) {  // a member of the wrong type
    throw Error(fmt::format("{}: {}", path.string(), e.what()));
  }
  return c;
}

}  // namespace pmukit::exporter
