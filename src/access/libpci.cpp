// pmukit -- libpci.so.3 opened with dlopen on first use (see libpci.h for why).
#include "libpci.h"

#include <dlfcn.h>

#include <string>

#include <fmt/format.h>

#include "pmukit/util/error.h"

namespace pmukit {

namespace {

constexpr const char* kSoname = "libpci.so.3";

// dlerror's text names the file and the symbol ("libpci.so.3: cannot open shared object file...",
// ".../libpci.so.3: undefined symbol: pci_init, version LIBPCI_3.5").
[[noreturn]] void fail() {
  const char* why = dlerror();
  throw Error(why ? why : fmt::format("{}: cannot be loaded", kSoname));
}

// Each function at the symbol version a program linked against Debian 12's libpci-dev (pciutils
// 3.9) binds (`nm -D --with-symbol-versions`), so that the structures passed are the ones
// <pci/pci.h> declares here: libpci keeps older layouts of struct pci_filter and pci_fill_info
// under older versions, and dlsym would give the newest.
template <typename Fn>
void bind(void* lib, Fn& fn, const char* name, const char* version) {
  void* sym = dlvsym(lib, name, version);
  if (!sym) fail();
  fn = reinterpret_cast<Fn>(sym);
}

LibPci open_libpci() {
  // RTLD_NOW: a missing symbol fails here, not in the middle of a scan; RTLD_LOCAL: its names do
  // not join the program's.
  void* lib = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail();
  LibPci f{};
  bind(lib, f.alloc, "pci_alloc", "LIBPCI_3.0");
  bind(lib, f.init, "pci_init", "LIBPCI_3.5");
  bind(lib, f.cleanup, "pci_cleanup", "LIBPCI_3.0");
  bind(lib, f.scan_bus, "pci_scan_bus", "LIBPCI_3.0");
  bind(lib, f.fill_info, "pci_fill_info", "LIBPCI_3.8");
  bind(lib, f.read_block, "pci_read_block", "LIBPCI_3.0");
  bind(lib, f.write_block, "pci_write_block", "LIBPCI_3.0");
  bind(lib, f.set_param, "pci_set_param", "LIBPCI_3.0");
  bind(lib, f.lookup_name, "pci_lookup_name", "LIBPCI_3.0");
  bind(lib, f.filter_init, "pci_filter_init", "LIBPCI_3.8");
  bind(lib, f.filter_parse_slot, "pci_filter_parse_slot", "LIBPCI_3.8");
  bind(lib, f.filter_parse_id, "pci_filter_parse_id", "LIBPCI_3.8");
  bind(lib, f.filter_match, "pci_filter_match", "LIBPCI_3.8");
  return f;
}

}  // namespace

const LibPci& libpci() {
  static const LibPci functions = open_libpci();  // a throw leaves it unset: the next call retries
  return functions;
}

}  // namespace pmukit
