// pmukit tools -- shared option handling and error reporting.
#include "common/tool.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include <fmt/format.h>

#include "pmukit/counting/workload.h"
#include "pmukit/util/error.h"
#include "pmukit/util/text.h"

namespace pmukit::tools {

namespace {
const char* g_tool = "pmukit";

struct HelpRequested {};
}  // namespace

const char* tool_name() {
  return g_tool;
}

void warn(const std::string& msg) {
  fmt::print(stderr, "{}: warning: {}\n", g_tool, msg);
}

void add_machine_options(CLI::App& app, MachineArgs& args) {
  app.add_option("--snapshot", args.snapshot,
                 "Read a captured or synthetic machine from DIR instead of this one: every path /X "
                 "becomes DIR/X (sysfs, ACPI tables, dev/mem, dev/cpu/N/msr, BAR resourceN files), and no "
                 "link or '..' leads out of DIR. DIR = / is the live machine")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  app.add_option("--pci-dump", args.pci_dump, "Read PCI config space from an 'lspci -xxxx' dump (libpci dump method)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile);
  app.add_option("-O", args.params, "Set a path parameter, like lspci -O (-O help lists them)")
      ->type_name("NAME=VALUE");
}

std::unique_ptr<Machine> make_machine(const MachineArgs& args) {
  MachineOptions opts;
  if (!args.snapshot.empty()) opts.root = args.snapshot;
  opts.live_perf = args.live_perf;
  if (!args.pci_dump.empty()) opts.pci_dump = args.pci_dump;
  for (const auto& p : args.params) {
    if (p == "help") {
      fmt::print("Path parameters (defaults are under the machine root):\n");
      for (const auto& info : param_table())
        fmt::print("  {:<14} {:<32} {}\n", info.name, info.default_path, info.help);
      throw HelpRequested{};
    }
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError(fmt::format("-O '{}': expected NAME=VALUE", p));
    opts.overrides[p.substr(0, eq)] = p.substr(eq + 1);
  }
  auto machine = std::make_unique<Machine>(std::move(opts));
  if (!args.snapshot.empty() && machine->is_live())
    fmt::print(stderr,
               "{}: note: --snapshot {} is this machine's root: this is the live machine, its files, devices and "
               "registers (as without --snapshot)\n",
               g_tool, args.snapshot);
  return machine;
}

CLI::Validator whole_number_in(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 20 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        auto v = digits ? parse_u64(text) : std::nullopt;
        if (v && *v >= lo && *v <= hi) return "";
        return fmt::format("'{}' is not a whole number from {} to {}", text.substr(0, 40), lo, hi);
      },
      fmt::format("{}..{}", lo, hi));
}

CLI::Validator seconds_in(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        // Plain decimal notation only: no "nan", "inf", hex floats or exponents beyond the bound.
        double v = 0;
        auto [end, ec] = parse_double(text.data(), text.data() + text.size(), v);
        bool ok = ec == std::errc() && end == text.data() + text.size() && std::isfinite(v) && v > 0 && v <= max;
        if (ok) return "";
        return fmt::format("'{}' is not a number of seconds in (0, {}]", text.substr(0, 40), max);
      },
      fmt::format("(0, {}]", max));
}

namespace {

// The option `name` ("-e", "--event") names, or nullptr.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::Option* o : app.get_options()) {
    if (name.size() > 2 && name.starts_with("--")) {
      for (const auto& l : o->get_lnames())
        if (l == name.substr(2)) return o;
    } else if (name.size() == 2 && name[0] == '-') {
      for (const auto& s : o->get_snames())
        if (s == name.substr(1)) return o;
    }
  }
  return nullptr;
}

bool takes_value(const CLI::Option* o) {
  return o && o->get_type_size_max() > 0 && o->get_items_expected_max() > 0;
}

// How many words the option word argv[i] uses (1, or 2 with a separate value). Short options
// cluster as getopt's do: "-ae X" is -a then -e X, "-eX" carries its value.
int option_words(const CLI::App& app, const std::string& word) {
  if (word.starts_with("--")) {
    if (word.find('=') != std::string::npos) return 1;
    return takes_value(find_option(app, word)) ? 2 : 1;
  }
  for (std::size_t k = 1; k < word.size(); ++k)
    if (takes_value(find_option(app, std::string("-") + word[k]))) return k + 1 == word.size() ? 2 : 1;
  return 1;
}

}  // namespace

std::vector<std::string> split_workload(const CLI::App& app, int& argc, char** argv) {
  for (int i = 1; i < argc;) {
    std::string word = argv[i];
    if (word == "--" || word.empty() || word[0] != '-' || word == "-") {
      int first = word == "--" ? i + 1 : i;
      std::vector<std::string> workload(argv + first, argv + argc);
      argc = i;
      return workload;
    }
    i += option_words(app, word);
  }
  return {};
}

void check_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    int err = errno ? errno : EIO;
    std::clearerr(stdout);
    if (err == EPIPE) throw std::system_error(std::make_error_code(std::errc::broken_pipe));  // `| head`: quiet
    throw Error(fmt::format("standard output: {}: the output is lost", errno_text(err)));
  }
}

int run_tool(const char* tool, CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  g_tool = tool;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end parsing too; CLI11 prints them.
    if (e.get_exit_code() == 0) return app.exit(e);
    // A usage error reads as every other error of the tool, and exits 2 as Linux tools do (CLI11's
    // own codes are 105, 106...).
    fmt::print(stderr, "{}: error: {}\nTry '{} --help' for more information.\n", tool, e.what(), tool);
    return 2;
  }
  try {
    int rc = body();
    check_stdout();
    return rc;
  } catch (const HelpRequested&) {
    return 0;
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 2;
  } catch (const counting::WorkloadError& e) {  // as perf stat: "Workload failed: ...", status 255
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 255;
  } catch (const Error& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 1;
  } catch (const std::system_error& e) {
    // The reader of our output went away (`| head`): what was being counted is already restored
    // (unwinding ran the destructors); say nothing more, as a tool killed by SIGPIPE would not.
    if (e.code() == std::errc::broken_pipe) return 0;
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", tool, e.what());
    return 1;
  }
}

}  // namespace pmukit::tools
