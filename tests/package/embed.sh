# The packages installed into a scratch root (dpkg -x): the tools run from there, the completion
# loads, and examples/ builds against the installed library both ways a user would embed it --
# find_package(pmukit) and pkg-config pmukit -- lists the PMUs of a snapshot machine, the same
# number pmu-discover finds, and counts an event on it under pmu-sim run, the same count pmu-raw
# prints for the same second.
set -euo pipefail
export LC_ALL=C
trap 'echo "command failed: line $LINENO: $BASH_COMMAND" >&2' ERR
T=$(mktemp -d "${TMPDIR:-/tmp}/pmukit-package-XXXXXX")
trap 'rm -rf "$T"' EXIT
root=$T/root
for deb in "${PMUKIT_PACKAGES:?}"/*.deb; do dpkg -x "$deb" "$root"; done
"$root/usr/bin/pmu-sim" create spr-2s "$T/spr" > /dev/null
units=$("$root/usr/sbin/pmu-discover" --snapshot "$T/spr" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["units"]))')
test "$units" -gt 100
"$root/usr/bin/pmu-report" --version | grep -q '^pmu-report (pmukit) '
# The completion, as bash-completion loads it: the file named after the command (a link here).
bash -c ". '$root/usr/share/bash-completion/completions/pmu-report' && complete -p pmu-raw" | grep -q -- '-F _pmukit pmu-raw'
# find_package(pmukit), from the scratch root only.
cmake -S "$PMUKIT_SRC/examples" -B "$T/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$root/usr" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; exit 1; }
grep -qx "pmukit_DIR:PATH=$root/usr/lib/x86_64-linux-gnu/cmake/pmukit" "$T/cmake/CMakeCache.txt"
cmake --build "$T/cmake" > "$T/build.log" 2>&1 || { cat "$T/build.log"; exit 1; }
"$T/cmake/list_pmus" "$T/spr" > "$T/cmake.out"
grep -qx "$units PMU units, [0-9]* PCI devices" "$T/cmake.out"
grep -q '^socket 1  uncore_imc_7 ' "$T/cmake.out"
# pkg-config pmukit, the same source.
export PKG_CONFIG_PATH=$root/usr/lib/x86_64-linux-gnu/pkgconfig
test "$(pkg-config --modversion pmukit)" = "$(sed -n 's/^project(pmukit VERSION \([0-9.]*\)$/\1/p' "$PMUKIT_SRC/CMakeLists.txt")"
# The flags are pkg-config's alone: -std=c++20 comes from pmukit.pc (g++ 12 defaults to C++17).
# shellcheck disable=SC2046
c++ -o "$T/list_pmus" "$PMUKIT_SRC/examples/list_pmus.cpp" $(pkg-config --cflags --libs pmukit)
"$T/list_pmus" "$T/spr" | diff "$T/cmake.out" -
echo "examples/list_pmus: built with find_package and with pkg-config, $units PMU units"
# count_events: the counting API on the snapshot under pmu-sim run (virtual time: one modelled
# second each), against pmu-raw's count of the same event, both from the scratch root.
"$root/usr/bin/pmu-sim" run "$T/spr" > /dev/null 2> "$T/sim.err" &
sim=$!
trap 'kill "$sim" 2> /dev/null; wait "$sim" 2> /dev/null; rm -rf "$T"' EXIT
for ((i = 0; i < 2000; i++)); do
  [ -e "$T/spr/run/pmukit-sim/clock" ] && break
  kill -0 "$sim" 2> /dev/null || { cat "$T/sim.err"; exit 1; }
  sleep 0.005
done
event=uncore_imc/cas_count_read/
raw=$("$root/usr/sbin/pmu-raw" --snapshot "$T/spr" -x, -e "$event" --duration 1 2> "$T/raw.err" | cut -d, -f1)
[ -n "$raw" ] && [ "$raw" != 0.00 ] || { cat "$T/raw.err"; exit 1; }
"$T/cmake/count_events" "$T/spr" "$event" > "$T/count.out"
grep -qx "$event: [1-9][0-9]* counts, $raw MiB in 1.000 s" "$T/count.out" || { cat "$T/count.out"; exit 1; }
# shellcheck disable=SC2046
c++ -std=c++20 -o "$T/count_events" "$PMUKIT_SRC/examples/count_events.cpp" $(pkg-config --cflags --libs pmukit)
"$T/count_events" "$T/spr" "$event" | diff "$T/count.out" -
echo "examples/count_events: built with find_package and with pkg-config, $(cat "$T/count.out"), as pmu-raw counts it"
