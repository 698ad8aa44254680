#!/bin/bash
# Runs Arm's cmn-tools (github.com/ArmDeveloperEcosystem/cmn-tools, not shipped with pmukit) on a
# bundled machine's CMN image and compares its node list with `pmu-discover --cmn`, node for node:
# type, node id and (x, y, port, device). A development check, not part of the test suite.
#
#   scripts/cmn-tools-check.sh CMN_TOOLS_CHECKOUT [BUILD_DIR] [MACHINE]
#
# cmn-tools reads /dev/mem; the script gives it the snapshot's dev/mem in a private mount namespace
# (unshare -m, as root), so nothing outside it changes. External RN-SAM children are left out of the
# comparison: pmu-discover does not read them (they are outside the mesh's power domain, as Linux
# leaves them) and says how many it skipped.
set -euo pipefail
tools=$(realpath "${1:?usage: $0 CMN_TOOLS_CHECKOUT [BUILD_DIR] [MACHINE]}")
build=$(realpath "${2:-build/default}")
machine=${3:-yitian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tools/pmu-sim" create "$machine" "$work/root" > /dev/null

cat > "$work/in-namespace.sh" << 'EOF'
#!/bin/bash
set -e
root=$1 tools=$2
mkdir -p "$root/../realdev" && mount --bind /dev "$root/../realdev"
mount -t tmpfs none /dev
for d in null zero urandom random; do touch /dev/$d && mount --bind "$root/../realdev/$d" /dev/$d; done
touch /dev/mem && mount --bind "$root/dev/mem" /dev/mem
cd "$tools/src"
USER=root HOME=/root python3 cmn_discover.py --cmn-iomem "$root/proc/iomem" --no-frequency \
  -o "$root/../cmn-system.json" --overwrite > "$root/../discover.out" 2>&1 || true # it exits 1 when
# this kernel has no arm-cmn driver (it says so); what it found is in its output
USER=root HOME=/root python3 cmn_list.py --cmn-iomem "$root/proc/iomem" > "$root/../list.out"
EOF
unshare -m --propagation private bash "$work/in-namespace.sh" "$work/root" "$tools"
grep -m1 '^Found' "$work/discover.out" || { cat "$work/discover.out" >&2; exit 1; }

# cmn_list: "CMN#0:HN-F#3:0x18c:(3,1,1,0)"; pmu-discover: "nodeid=0x18c(396), ..., type=0x5(HN-F),
# (x,y,portid,devid)=(3,1,1,0)". Names differ for four types (cmn-tools: DN, DT, CCG-HA, CCG-RA).
grep -oE 'CMN#[0-9]+:[A-Za-z-]+#?[0-9]*:0x[0-9a-f]+:\([0-9,]+\)' "$work/list.out" | sort -u |
  sed -E 's/CMN#[0-9]+:([A-Za-z-]+)#?[0-9]*:(0x[0-9a-f]+):\(([0-9,]+)\)/\1 \2 \3/' |
  awk 'BEGIN { n["DN"] = "DVM"; n["DT"] = "DTC"; n["CCG-HA"] = "CCHA"; n["CCG-RA"] = "CCRA" }
       $1 != "RN-SAM" { t = ($1 in n) ? n[$1] : $1; k = split($3, a, ",")
         if (k == 2) { a[3] = 0; a[4] = 0 }
         printf "%s %d %s,%s,%s,%s\n", t, strtonum($2), a[1], a[2], a[3], a[4] }' |
  sort > "$work/cmn-tools.nodes"
"$build/tools/pmu-discover" --snapshot "$work/root" --cmn | grep '^nodeid=' |
  sed -E 's/nodeid=0x[0-9a-f]+\(([0-9]+)\).*type=0x[0-9a-f]+\(([A-Za-z_-]+)\), \(x,y,portid,devid\)=\(([0-9,]+)\)/\2 \1 \3/' |
  sort > "$work/pmukit.nodes"
if diff "$work/cmn-tools.nodes" "$work/pmukit.nodes"; then
  echo "cmn-tools and pmu-discover agree on all $(wc -l < "$work/pmukit.nodes") nodes of $machine" \
    "(external RN-SAM nodes, which pmu-discover does not read, left out)"
else
  echo "cmn-tools and pmu-discover differ (< cmn-tools, > pmu-discover)" >&2
  exit 1
fi
