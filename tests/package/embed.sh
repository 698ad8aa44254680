# The packages installed into a scratch root (dpkg -x): the tools run from there, the completion
# loads, and examples/ builds against the installed library both ways a user would embed it --
# find_package(pmukit) and pkg-config pmukit -- and lists the PMUs of a snapshot machine, the same
# number pmu-discover finds.
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
