#!/usr/bin/env bash
# Installs the Debian 12 packages pmukit builds, tests and benchmarks with.
# Run as root (CI does); a non-root user gets sudo if it is there.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libpci-dev pciutils pci.ids          # libpci 3.9: config space, filters, dump files; lspci for cross-checks
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libevent-dev                         # pmu-exporter's HTTP server (evhttp)
  prometheus curl                      # cli.exporter*: a real Prometheus scrapes pmu-exporter; HTTP requests
  libgtest-dev libgmock-dev libbenchmark-dev
  linux-perf                           # perf stat, to cross-check the perf backend
  strace                               # cli.live_root: proves no tool opens a BAR or /dev/mem on the live machine
  python3                              # bench/ scripts
  gawk bc                              # bench/rcmap: the Tegra410 guide's RC-mapping script uses gawk match()
  clang-format                         # style.format: the sources stay as .clang-format formats them
  scdoc                                # man pages (docs/man/*.scd), built with the project
  dpkg-dev file                        # the .deb: CPack runs dpkg-shlibdeps and file on the tools
  lintian                              # package.lintian: the .deb has no lintian errors or warnings
  bash-completion                      # where packaging/bash-completion/pmukit is loaded from
  chromium fonts-dejavu-core           # cli.report_render: pmu-report's page rendered headless
  clang-14 libclang-rt-14-dev          # fuzz/: libFuzzer and the sanitizer runtimes (scripts/fuzz.sh)
)
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}"
