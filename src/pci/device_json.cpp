// pmukit -- the pmukit.pci/1 document (docs/json.md), written a device at a time.
#include "pmukit/pci/device_json.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <utility>

namespace pmukit::pci {

namespace {

const char* kind_name(CapKind k) {
  return k == CapKind::Standard ? "standard" : "extended";
}

// JSON text in the layout of nlohmann's dump(2) (two spaces per level, "key": value, empty
// containers as [] and {}), written straight into one string: building each device as a json
// value and dumping it was most of the PCI view's user time at 5,120 devices.
class IndentedJson {
 public:
  IndentedJson(std::string& out, int depth) : out_(out), depth_(depth) {}

  void open(char bracket) {
    out_ += bracket;
    ++depth_;
    ++level_;
    first_ |= bit();  // nothing written at this level yet
  }
  void close(char bracket) {
    --depth_;
    bool empty = first_ & bit();
    first_ &= ~bit();
    --level_;
    if (!empty) newline();
    out_ += bracket;
  }
  // Starts the next member or element.
  IndentedJson& next() {
    if (!(first_ & bit())) out_ += ',';
    first_ &= ~bit();
    newline();
    return *this;
  }
  // `k` is one of this file's literal keys: plain ASCII, written as is.
  IndentedJson& key(std::string_view k) {
    next();
    out_ += '"';
    out_.append(k);
    out_.append("\": ", 3);
    return *this;
  }
  void string(std::string_view s) {
    // Printable ASCII without quote or backslash is written as is; anything else goes through
    // nlohmann's serializer, so escapes (and its error on invalid UTF-8) stay exactly its own.
    bool plain = std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
    if (plain) {
      out_ += '"';
      out_.append(s);
      out_ += '"';
    } else {
      out_ += nlohmann::ordered_json(s).dump();
    }
  }
  // "0x..." in lowercase hex without padding, as util's hex(v) writes it.
  void hex_string(std::uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
    out_.append("\"0x", 3);
    out_.append(buf, r.ptr);
    out_ += '"';
  }
  template <typename T>
  void number(T v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void boolean(bool v) { out_ += v ? "true" : "false"; }
  void null() { out_ += "null"; }

 private:
  // One bit per open container, set until its first member or element is written; the PCI
  // document nests six deep.
  std::uint64_t bit() const { return std::uint64_t{1} << level_; }
  void newline() {
    out_ += '\n';
    out_.append(2 * static_cast<std::size_t>(depth_), ' ');
  }

  std::string& out_;
  int depth_;
  unsigned level_ = 0;
  std::uint64_t first_ = 0;
};

void write_bars(IndentedJson& w, const std::vector<Bar>& bars) {
  w.key("bars").open('[');
  for (const auto& b : bars) {
    w.next().open('{');
    w.key("index").number(b.index);
    w.key("type").string(b.io ? "io" : b.mem64 ? "mem64" : "mem32");
    w.key("base").hex_string(b.base);
    w.key("size").number(b.size);
    w.key("prefetchable").boolean(b.prefetchable);
    w.close('}');
  }
  w.close(']');
}

void write_capabilities(IndentedJson& w, const std::vector<Capability>& caps) {
  w.key("capabilities").open('[');
  for (const auto& c : caps) {
    w.next().open('{');
    w.key("kind").string(kind_name(c.kind));
    w.key("offset").number(c.offset);
    w.key("id").number(c.id);
    w.key("name").string(capability_name(c.kind, c.id));
    if (c.kind == CapKind::Extended) w.key("version").number(c.version);
    if (c.pcie_port_type) w.key("port_type").string(port_type_name(*c.pcie_port_type));
    for (auto [key, vh] : {std::pair{"vsec", c.vsec}, std::pair{"dvsec", c.dvsec}}) {
      if (!vh) continue;
      w.key(key).open('{');
      w.key("vendor").number(vh->vendor);
      w.key("id").number(vh->id);
      w.key("rev").number(vh->rev);
      w.key("length").number(vh->length);
      w.close('}');
    }
    w.close('}');
  }
  w.close(']');
}

// One element of "devices", at the depth dump(2) of the whole document gives it.
void write_device(std::string& out, const Device& d) {
  IndentedJson w(out, 2);
  w.open('{');
  w.key("bdf").string(d.bdf.str());
  w.key("domain").number(d.bdf.domain);
  w.key("bus").number(d.bdf.bus);
  w.key("device").number(d.bdf.dev);
  w.key("function").number(d.bdf.fn);
  w.key("vendor_id").number(d.vendor_id);
  w.key("device_id").number(d.device_id);
  w.key("class").number(d.class_code);
  w.key("revision").number(d.revision);
  w.key("header_type").number(d.header_type);
  w.key("numa_node").number(d.numa_node);
  w.key("config_size").number(d.config_size);
  w.key("pcie").boolean(d.is_pcie);
  auto& port_type = w.key("port_type");
  d.port_type ? port_type.string(port_type_name(*d.port_type)) : port_type.null();
  auto& root_port = w.key("root_port");
  d.root_port ? root_port.string(d.root_port->str()) : root_port.null();
  if (d.secondary_bus) {
    w.key("secondary_bus").number(*d.secondary_bus);
    w.key("subordinate_bus").number(*d.subordinate_bus);
  }
  write_bars(w, d.bars);
  write_capabilities(w, d.caps);
  w.key("warnings").open('[');
  for (const auto& warning : d.warnings) w.next().string(warning);
  w.close(']');
  w.close('}');
}

}  // namespace

void write_devices_json(std::FILE* out, const nlohmann::ordered_json& head, const std::vector<Device>& devices) {
  // head.dump(2) is "{\n  ...\n}": reopened after its last member for "devices".
  std::string text = head.dump(2);
  text.resize(text.size() - 2);
  text += devices.empty() ? ",\n  \"devices\": []" : ",\n  \"devices\": [";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    text += i ? ",\n    " : "\n    ";
    write_device(text, devices[i]);
    if (text.size() >= 64 * 1024 || i + 1 == devices.size()) {
      std::fwrite(text.data(), 1, text.size(), out);
      text.clear();
    }
  }
  text += devices.empty() ? "\n}\n" : "\n  ]\n}\n";
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace pmukit::pci
