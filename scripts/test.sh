#!/usr/bin/env bash
# The whole test suite: configure, build and test both presets (release, then ASan+UBSan).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --workflow --preset default
cmake --workflow --preset asan
