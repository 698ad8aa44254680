// pmukit fuzz -- perf's event syntax (-e): the list parser, the term parser, and the encoder
// against a PMU described the way sysfs describes an SPR IMC box.
#include "fuzz_support.h"
#include "pmukit/syntax/encoder.h"
#include "pmukit/syntax/event_parser.h"
#include "pmukit/syntax/format.h"
#include "pmukit/util/error.h"

using namespace pmukit;

namespace {

const syntax::PmuDescription& imc() {
  static const syntax::PmuDescription d = [] {
    syntax::PmuDescription p;
    p.name = "uncore_imc_0";
    for (auto [name, text] : {std::pair{"event", "config:0-7"},
                              {"umask", "config:8-15,32-55"},
                              {"edge", "config:18"},
                              {"thresh", "config:24-31"},
                              {"filter", "config1:0-63"}})
      p.formats.emplace(name, syntax::parse_format(name, text));
    p.aliases.emplace("cas_count_read", syntax::EventAlias{"cas_count_read", "event=0x04,umask=0x03", 6.1e-5, "MiB"});
    p.aliases.emplace("lanes", syntax::EventAlias{"lanes", "event=0x1,thresh=?", 1.0, ""});
    return p;
  }();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto s = fuzz::text(data, size);
  try {
    for (const auto& spec : syntax::parse_event_list(s)) {
      try {
        (void)syntax::encode(spec, imc());
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  try {
    (void)syntax::parse_terms(s);
  } catch (const Error&) {
  }
  return 0;
}
