// pmukit -- the CMN node tree walk: root (CFG) -> crosspoints -> device nodes, with guards.
//
// The order of reads and what is skipped follow Linux arm-cmn.c arm_cmn_discover(): the root's
// peripheral IDs and por_info_global, its child pointers (the XPs), then per XP its connect-info
// and DTC-domain registers and its child pointers (the device nodes). What Linux trusts, pmukit
// checks: every node offset must lie inside the mapped region, be aligned to the part's node
// size and not have been visited; child counts are bounded (144 XPs, 32 children per XP); device
// nodes' own children are never followed. External and isolated children are never read.
#include "pmukit/families/cmn/cmn_walk.h"

#include <optional>
#include <set>

#include <fmt/format.h>

#include "pmukit/families/cmn/cmn_mesh.h"
#include "pmukit/families/cmn/cmn_regs.h"

namespace pmukit::discovery {

namespace {

namespace r = regs::cmn;

class Walker {
 public:
  Walker(const CmnRegion& region, const platform::CmnData& data, CmnUnit& unit, std::vector<std::string>& problems)
      : region_(region), data_(data), u_(unit), problems_(problems) {}

  void run() {
    if (!read_root()) return;
    for (unsigned i = 0; i < root_children_; ++i) {
      const RegValue<r::ChildPointer> ptr{read64(u_.root_offset + root_ptrs_ + 8ull * i)};
      if (auto xp = follow(ptr, -1, true)) read_xp(*xp);
    }
    u_.walked = true;
    decode_cmn_mesh(part_, u_, problems_);
  }

 private:
  std::uint64_t read64(std::uint64_t off) {
    ++u_.register_reads;
    return region_.read64(off);
  }
  std::uint32_t read32(std::uint64_t off) {
    ++u_.register_reads;
    return region_.read32(off);
  }
  // Register R of the node whose block is at `node`, as one 64-bit load.
  template <class R>
  RegValue<R> read(std::uint64_t node) {
    return RegValue<R>{read64(node + R::offset)};
  }
  // Word R read as the low dword at `off` (what arm-cmn.c reads with readl).
  template <class R>
  RegValue<R> read_low(std::uint64_t off) {
    return RegValue<R>{read32(off)};
  }
  void problem(std::string text) { problems_.push_back(fmt::format("{}: {}", where(), text)); }
  std::string where() const { return u_.device.empty() ? std::string("CMN") : u_.device; }

  // Why a node block cannot be read at `off`, or "".
  std::string bad_offset(std::uint64_t off) const {
    if (off > region_.size() || region_.size() - off < node_size_)
      return fmt::format("outside the configuration region ({:#x} bytes)", region_.size());
    if (off % node_size_) return fmt::format("not aligned to the {} KiB node size", node_size_ / 1024);
    if (seen_.count(off)) return "a node already visited (the tree loops)";
    return "";
  }

  bool read_root() {
    node_size_ = 0x4000;  // before the part is known: the smallest block of any part
    if (auto why = bad_offset(u_.root_offset); !why.empty()) {
      problem(fmt::format("root node @{:#x}: {}: not walked", u_.root_offset, why));
      return false;
    }
    seen_.insert(u_.root_offset);
    const auto info = read<r::NodeInfo>(u_.root_offset);
    if (r::NodeInfo::NodeType::get(info) != r::kTypeCfg) {
      problem(fmt::format("root node @{:#x}: node_info {:#018x} is not a configuration node (type {:#x}): not walked",
                          u_.root_offset, info.raw, r::NodeInfo::NodeType::get(info)));
      return false;
    }
    const auto id01 = read<r::PeriphId01>(u_.root_offset);
    u_.part = static_cast<std::uint16_t>(r::PeriphId01::PartLow::get(id01) | r::PeriphId01::PartHigh::get(id01) << 8);
    const auto id23 = read_low<r::PeriphId23>(u_.root_offset + r::PeriphId23::offset);  // revision is in the low dword
    u_.revision = static_cast<unsigned>(r::PeriphId23::Revision::get(id23));
    part_ = data_.part(u_.part);
    if (!part_) {
      // Linux warns and carries on; a walk with another part's layout can read where nothing
      // answers, so pmukit stops here.
      problem(fmt::format("part number {:#x} is no CMN part pmukit knows: node tree not walked", u_.part));
      return false;
    }
    if (u_.firmware_part && data_.part(u_.firmware_part) != part_)
      problem(
          fmt::format("firmware binding mismatch: expected part number {:#x}, found {:#x} (Linux uses the part read)",
                      u_.firmware_part, u_.part));
    u_.part_name = part_->name;
    u_.revision_name = part_->revision_name(u_.revision);
    node_size_ = part_->node_size;
    if (u_.root_offset % node_size_ || region_.size() - u_.root_offset < node_size_) {
      // Checked for the smallest node before the part was known; this part's nodes are larger.
      problem(fmt::format("root node @{:#x}: not a whole {} KiB node of this part inside the configuration region: "
                          "not walked",
                          u_.root_offset, node_size_ / 1024));
      return false;
    }
    u_.info_global = read<r::InfoGlobal>(u_.root_offset);
    u_.multi_dtm = r::InfoGlobal::MultipleDtmEn::get(u_.info_global);
    u_.device_isolation = r::InfoGlobal::DeviceIsoEnable::get(u_.info_global);
    return read_root_children();
  }

  // The root's child info: how many crosspoints, and where their pointers are in its block.
  bool read_root_children() {
    const auto ci = read<r::ChildInfo>(u_.root_offset);
    root_children_ = static_cast<unsigned>(r::ChildInfo::Count::get(ci));
    root_ptrs_ = r::ChildInfo::PtrOffset::get(ci);
    if (root_children_ > r::kMaxXps) {
      problem(fmt::format("root node says {} crosspoints, more than a {}x{} mesh: not walked", root_children_,
                          r::kMaxDimension, r::kMaxDimension));
      return false;
    }
    if (root_ptrs_ + 8ull * root_children_ > node_size_) {
      problem(fmt::format("root node's child pointers ({} at +{:#x}) leave its {:#x}-byte block: not walked",
                          root_children_, root_ptrs_, node_size_));
      return false;
    }
    if (root_ptrs_ % 8) {  // child pointers are 64-bit registers (por_cfgm_child_pointer_<n>)
      problem(fmt::format("root node's child pointers are at +{:#x}, not a 64-bit register: not walked", root_ptrs_));
      return false;
    }
    return true;
  }

  // The offset of the node a child pointer names, or nullopt (and a record of why) when the walk
  // must not read it.
  std::optional<std::uint64_t> follow(RegValue<r::ChildPointer> ptr, int parent, bool want_xp) {
    std::uint64_t off = ptr.raw & low_mask(part_->child_offset_bits);  // the offset's width is part data
    auto skip = [&](std::string reason, bool expected) {
      u_.skipped.push_back({ptr.raw, parent, reason, expected});
      if (!expected)
        problem(fmt::format("{} pointer {:#x} ({}): {}: not read", want_xp ? "crosspoint" : "child", ptr.raw,
                            parent < 0 ? std::string("root") : fmt::format("XP {:#x}", u_.nodes[parent].id), reason));
      return std::nullopt;
    };
    if (r::ChildPointer::External::get(ptr))
      return want_xp ? skip("an external crosspoint", false)
                     : skip("external: outside the mesh's power domain (RN-SAM, CXLA)", true);
    if (r::ChildPointer::Isolated::get(ptr)) return skip("isolated (pointer bit 30)", !want_xp);
    // AmpereOneX erratum AC04_MESH_1: XPs report more children than they have valid pointers, and
    // the rest read 0; a real child at offset 0 is only possible on a CMN-600 whose root is elsewhere.
    if (ptr.raw == 0 && u_.root_offset == 0) return skip("a zero pointer (more children counted than exist)", !want_xp);
    if (auto why = bad_offset(off); !why.empty()) return skip(fmt::format("node @{:#x} is {}", off, why), false);
    return off;
  }

  // Reads node_info at `off`; nullopt when it is not of an expected type.
  std::optional<CmnNode> read_node(std::uint64_t off, std::uint64_t ptr, int parent, bool want_xp) {
    seen_.insert(off);
    const auto info = read<r::NodeInfo>(off);
    last_info_ = info;
    CmnNode n;
    n.type = static_cast<std::uint16_t>(r::NodeInfo::NodeType::get(info));
    n.id = static_cast<std::uint16_t>(r::NodeInfo::NodeId::get(info));
    n.logid = static_cast<std::uint16_t>(r::NodeInfo::LogicalId::get(info));
    n.offset = off;
    const auto* t = data_.node_type(n.type);
    std::string wrong;
    if (info.raw == ~0ull)
      wrong = "node_info reads all ones (nothing answers there)";
    else if (want_xp && n.type != r::kTypeXp)
      wrong = fmt::format("type {:#x} is not a crosspoint", n.type);
    else if (!want_xp && (!t || !t->device))
      wrong = fmt::format("type {:#x} is not a device node type (Linux refuses the whole mesh for it)", n.type);
    if (!wrong.empty()) {
      u_.skipped.push_back({ptr, parent, wrong, false});
      problem(fmt::format("node @{:#x}: {}: ignored", off, wrong));
      return std::nullopt;
    }
    if (n.logid > r::kMaxLogicalId)
      problem(fmt::format("{} @{:#x} has logical id {}, above any supported mesh (Linux refuses the mesh)",
                          data_.type_name(n.type), off, n.logid));
    return n;
  }

  void read_xp(std::uint64_t off) {
    auto node = read_node(off, off, -1, true);
    if (!node) return;
    unsigned idx = static_cast<unsigned>(u_.nodes.size());
    node->xp = static_cast<int>(u_.xps.size());
    u_.nodes.push_back(*node);
    CmnXp xp;
    xp.node = idx;
    unsigned ports = part_->connect_info_ports;
    if (part_->xp_port_count) {
      // CMN-700 XPs say how many device ports they have (SCP-firmware, cmn-tools n_device_ports());
      // Linux reads all six connect-info registers, the ports an XP lacks read 0.
      xp.device_ports = static_cast<unsigned>(r::NodeInfo::XpDevicePorts::get(last_info_));
      if (xp.device_ports >= 1 && xp.device_ports < ports) ports = xp.device_ports;
    }
    for (unsigned p = 0; p < ports; ++p) {
      std::uint64_t at = r::connect_info(p) + (p >= 2 ? part_->high_ports_shift : 0);
      const auto ci = read_low<r::ConnectInfo>(off + at);
      if (ci.raw)
        xp.ports.push_back({p, ci, static_cast<std::uint8_t>(r::ConnectInfo::DeviceType::get(ci)),
                            r::ConnectInfo::CalConnected::get(ci) != 0});
    }
    if (part_->dtc_domain_register)  // where it is is part data
      u_.nodes[idx].dtc =
          static_cast<int>(r::DtmUnitInfo::DtcDomain::get(read_low<r::DtmUnitInfo>(off + *part_->dtc_domain_register)));
    const auto ci = read<r::ChildInfo>(off);
    unsigned count = static_cast<unsigned>(r::ChildInfo::Count::get(ci));
    std::uint64_t ptrs = r::ChildInfo::PtrOffset::get(ci);
    u_.xps.push_back(xp);
    if (count > r::kMaxXpChildren || ptrs + 8ull * count > node_size_) {
      problem(fmt::format("XP {:#x} @{:#x} says {} children at +{:#x}: more than its pointer array holds; none read",
                          u_.nodes[idx].id, off, count, ptrs));
      return;
    }
    if (ptrs % 8) {  // child pointers are 64-bit registers (por_mxp_child_pointer_<n>)
      problem(fmt::format("XP {:#x} @{:#x} says its child pointers are at +{:#x}, not a 64-bit register; none read",
                          u_.nodes[idx].id, off, ptrs));
      return;
    }
    if (u_.device_isolation) {
      // Linux stops at this bit ("Device isolation enabled, not continuing due to risk of lockup").
      for (unsigned j = 0; j < count; ++j)
        u_.skipped.push_back(
            {0, static_cast<int>(idx), "device isolation is enabled: nothing behind a port is read", true});
      return;
    }
    for (unsigned j = 0; j < count; ++j) {
      const RegValue<r::ChildPointer> ptr{read64(off + ptrs + 8ull * j)};
      auto child = follow(ptr, static_cast<int>(idx), false);
      if (!child) continue;
      if (auto dn = read_node(*child, ptr.raw, static_cast<int>(idx), false)) {
        dn->xp = static_cast<int>(u_.xps.size() - 1);
        u_.xps.back().devices.push_back(static_cast<unsigned>(u_.nodes.size()));
        u_.nodes.push_back(*dn);
      }
    }
  }

  const CmnRegion& region_;
  const platform::CmnData& data_;
  CmnUnit& u_;
  std::vector<std::string>& problems_;
  const platform::CmnPart* part_ = nullptr;
  std::uint64_t node_size_ = 0x4000;
  RegValue<r::NodeInfo> last_info_;  // node_info of the node read last
  std::set<std::uint64_t> seen_;
  unsigned root_children_ = 0;
  std::uint64_t root_ptrs_ = 0;
};

}  // namespace

void walk_cmn(const CmnRegion& region, const platform::CmnData& data, CmnUnit& unit,
              std::vector<std::string>& problems) {
  Walker(region, data, unit, problems).run();
}

}  // namespace pmukit::discovery
