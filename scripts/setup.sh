#!/usr/bin/env bash
# Quick start, step 1 (as root on Debian 12): install the packages, build, and run pmu-discover
# on this machine. A machine without uncore PMU discovery (a VM, a laptop) shows a bundled
# synthetic machine instead, clearly labelled as such.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
build/default/tools/pmu-discover --dump --fallback-machine spr-2s
