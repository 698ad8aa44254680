// pmu-exporter -- counts uncore PMU events and metrics continuously and serves them to Prometheus.
#include <signal.h>

#include <cstdio>

#include <fmt/format.h>

#include "common/tool.h"
#include "config.h"
#include "counting.h"
#include "http_routes.h"
#include "pmukit/counting/device_events.h"
#include "pmukit/families/registry.h"
#include "pmukit/util/clock.h"
#include "pmukit/util/error.h"
#include "pmukit/util/signals.h"

using namespace pmukit;

namespace {

constexpr const char* kAbout =
    "pmu-exporter: count uncore PMU events and metrics continuously and serve them to Prometheus.\n\n"
    "What to count, how and where to listen is one JSON file (man pmu-exporter):\n"
    "  {\"listen\": \"127.0.0.1:9739\", \"events\": [\"uncore_imc/cas_count_read/\"],\n"
    "   \"metrics\": [\"spr_dram_read_bw\"], \"granularity\": \"per-socket\"}\n"
    "  pmu-exporter -c /etc/pmukit/exporter.json\n"
    "  curl -s localhost:9739/metrics\n"
    "Counters are read as pmu-raw reads them (--backend auto's choice per PMU, the machine lock);\n"
    "every register it changes is saved first and restored when it stops (SIGTERM, SIGINT).";

struct Options {
  tools::MachineArgs machine;
  std::string config;
  std::string listen;
  std::string naming;
};

// SIGINT/SIGTERM/SIGHUP end the counting loop, which then restores the registers. Only the main
// thread takes them (the server's threads are started with them blocked), so its sleep is the one
// a signal cuts short. A scraper that goes away must not kill the exporter: SIGPIPE is ignored.
void install_signals() {
  interrupt_on({SIGINT, SIGTERM, SIGHUP});
  ::signal(SIGPIPE, SIG_IGN);
}

void start_server_without_signals(exporter::HttpServer& http) {
  sigset_t ending, old;
  sigemptyset(&ending);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&ending, s);
  ::pthread_sigmask(SIG_BLOCK, &ending, &old);
  http.start();
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

exporter::RunInfo run_info(const exporter::Config& c, const counting::Run& run, double read_interval_s) {
  exporter::RunInfo info;
  info.clock = run.time.clock->describe();
  info.notes = run.backend->notes();
  for (const auto& e : c.events) info.events.push_back(e.event);
  info.metrics = c.metrics;
  info.read_interval_s = read_interval_s;
  return info;
}

int run_exporter(const Options& o) {
  install_signals();
  exporter::Config config = exporter::load_config(o.config);
  if (!o.listen.empty()) exporter::parse_listen(o.listen, "--listen", config);
  if (!o.naming.empty()) exporter::set_naming(config, *exporter::naming(o.naming));
  auto machine = tools::make_machine(o.machine);
  counting::Request request;
  request.discovered = families::discover(*machine);  // once: for the device labels and the Run
  try {  // a device label is the machine's: the event is bound to (or checked against) its PMU and filter
    counting::bind_device_events(*machine, *request.discovered, config.events);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", o.config, e.what()));
  }
  for (const auto& e : config.events) request.events.push_back(e.event);
  request.metrics = config.metrics;
  request.neutral_metrics_optional = true;
  request.event_files = config.event_files;
  request.metric_params = config.metric_params;
  request.backend.mode = config.backend;
  request.backend.force = config.force;
  request.backend.per_socket = config.granularity == exporter::Granularity::PerSocket;
  request.backend.interval_ms = config.read_interval_ms;
  counting::Run run(*machine, request, [](const std::string& m) { fmt::print(stderr, "pmu-exporter: {}\n", m); });
  exporter::SnapshotBoard board;
  exporter::Publisher publisher(config, run, board);
  counting::ReadLoop loop(run, publisher.loop_options(), publisher);
  exporter::HttpServer http(config, board, run_info(config, run, publisher.read_interval_ns() / 1e9));
  start_server_without_signals(http);
  loop.start();  // the counters count, and the first snapshot (every series at zero) is published
  const bool v6 = config.listen_host.find(':') != std::string::npos;
  // Where it serves is its output (a supervisor or a test reads the port of "listen :0" there),
  // once the counters count and the first snapshot is published.
  fmt::print("pmu-exporter: listening on http://{}{}{}:{}/ ({})\n", v6 ? "[" : "", config.listen_host, v6 ? "]" : "",
             http.port(), run.time.clock->describe());
  std::fflush(stdout);
  for (const auto& n : run.backend->notes()) fmt::print(stderr, "pmu-exporter: {}\n", n);
  loop.run();  // until SIGTERM/SIGINT; an error unwinds, and the session's destructor restores
  http.stop();
  auto restore_errors = loop.finish();
  for (const auto& e : restore_errors) fmt::print(stderr, "pmu-exporter: error: {}\n", e);
  return restore_errors.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kAbout, "pmu-exporter"};
  app.allow_extras(false);
  Options o;
  tools::add_machine_options(app, o.machine);
  app.add_option("-c,--config", o.config, "The configuration file (JSON): events, metrics, granularity, listen address")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--listen", o.listen,
                 "Listen on HOST:PORT instead of the file's address (default 127.0.0.1:9739; port 0: any free "
                 "port, printed on stderr)")
      ->type_name("HOST:PORT");
  app.add_option("--naming", o.naming,
                 "Metric names: pmukit (default) or pcm, those of Intel PCM's pcm-sensor-server (DRAM_Reads, "
                 "DRAM_Writes), served on PCM's port 9738 unless a listen address is given")
      ->type_name("pmukit|pcm")
      ->check(CLI::IsMember({"pmukit", "pcm"}));
  app.set_version_flag("-V,--version", fmt::format("pmu-exporter (pmukit) {}", exporter::kVersion));
  return tools::run_tool("pmu-exporter", app, argc, argv, [&] { return run_exporter(o); });
}
