# The .deb packages from this build tree (CPack, no rebuild): their names, Depends (the tools' from
# dpkg-shlibdeps: the Debian runtime packages of the libraries they link) and file lists.
# Leaves them in $PMUKIT_PACKAGES for package.embed and package.lintian.
set -euo pipefail
export LC_ALL=C
trap 'echo "command failed: line $LINENO: $BASH_COMMAND" >&2' ERR
out=${PMUKIT_PACKAGES:?set by CTest}
command -v scdoc > /dev/null || { echo "scdoc is not installed: no man pages to package (scripts/install-deps.sh)" >&2; exit 1; }
rm -rf "$out"
cpack --config "$PMUKIT_BUILD/CPackConfig.cmake" -B "$out" > "$out.log" 2>&1 || { cat "$out.log"; exit 1; }
version=$(sed -n 's/^project(pmukit VERSION \([0-9.]*\)$/\1/p' "$PMUKIT_SRC/CMakeLists.txt")
tools=$out/pmukit_${version}_amd64.deb
dev=$out/libpmukit-dev_${version}_amd64.deb
test -s "$tools" && test -s "$dev"
depends=$(dpkg-deb -f "$tools" Depends)
echo "pmukit Depends: $depends"
# libevent-core-2.1-7 and libevent-extra-2.1-7 are the Debian 12 packages of libevent's core and
# evhttp (pmu-exporter's HTTP server), found by dpkg-shlibdeps, as is libc6; libpci3 is named by
# hand (libpci.so.3 is opened on first use). The C++ runtime and fmt are linked in (for the tools'
# start-up time): no libstdc++6, no libfmt9.
names=$(sed 's/, /\n/g' <<< "$depends" | cut -d' ' -f1)
for pkg in libc6 libpci3 libevent-core-2.1-7 libevent-extra-2.1-7; do grep -qxF "$pkg" <<< "$names"; done
for pkg in libstdc++6 libfmt9; do
  if grep -qxF "$pkg" <<< "$names"; then echo "pmukit should not depend on $pkg" >&2; exit 1; fi
done
test "$(dpkg-deb -f "$dev" Depends)" = "libfmt-dev (>= 9), libpci-dev (>= 1:3.6), nlohmann-json3-dev (>= 3.11)"
test "$(dpkg-deb -f "$tools" Section)" = admin && test "$(dpkg-deb -f "$dev" Section)" = libdevel
dpkg-deb -c "$tools" | awk '{print $6}' | sed 's|^\./|/|' > "$out/tools.files"
dpkg-deb -c "$dev" | awk '{print $6}' | sed 's|^\./|/|' > "$out/dev.files"
for f in /usr/sbin/pmu-discover /usr/sbin/pmu-raw /usr/sbin/pmu-rcmap /usr/bin/pmu-sim /usr/bin/pmu-report \
  /usr/sbin/pmu-exporter /lib/systemd/system/pmukit-exporter.service /usr/share/man/man8/pmu-exporter.8.gz \
  /usr/share/doc/pmukit/examples/exporter.json /usr/share/doc/pmukit/examples/grafana-dashboard.json \
  /usr/share/man/man8/pmu-discover.8.gz /usr/share/man/man8/pmu-raw.8.gz /usr/share/man/man8/pmu-rcmap.8.gz \
  /usr/share/man/man1/pmu-sim.1.gz /usr/share/man/man1/pmu-report.1.gz \
  /usr/share/bash-completion/completions/pmu-raw /usr/share/bash-completion/completions/pmu-report \
  /usr/share/bash-completion/completions/pmu-exporter \
  /usr/share/doc/pmukit/copyright /usr/share/doc/pmukit/changelog.gz; do
  grep -qxF "$f" "$out/tools.files" || { echo "pmukit lacks $f" >&2; exit 1; }
done
for f in /usr/lib/x86_64-linux-gnu/libpmukit.a /usr/lib/x86_64-linux-gnu/cmake/pmukit/pmukitConfig.cmake \
  /usr/lib/x86_64-linux-gnu/cmake/pmukit/pmukitConfigVersion.cmake /usr/lib/x86_64-linux-gnu/cmake/pmukit/pmukitTargets.cmake \
  /usr/lib/x86_64-linux-gnu/pkgconfig/pmukit.pc /usr/include/pmukit/discovery/discover.h \
  /usr/share/doc/libpmukit-dev/copyright /usr/share/doc/libpmukit-dev/changelog.gz; do
  grep -qxF "$f" "$out/dev.files" || { echo "libpmukit-dev lacks $f" >&2; exit 1; }
done
# Nothing outside /usr (but systemd units, in Debian 12's /lib/systemd/system), nothing in both packages.
if grep -vE '^/usr/|^/lib/(systemd/(system/)?)?$|^/lib/systemd/system/[^/]+$' "$out/tools.files" "$out/dev.files"; then
  exit 1
fi
test -z "$(comm -12 <(grep -v '/$' "$out/tools.files" | sort) <(grep -v '/$' "$out/dev.files" | sort))"
ls -l "$out"/*.deb
