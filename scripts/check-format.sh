#!/usr/bin/env bash
# Style check run by CTest: every C++ source is formatted as .clang-format says (clang-format 14,
# Debian 12's). Skipped (77) where clang-format is not installed. Fix with:
#   git ls-files '*.cpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format > /dev/null || { echo "skipped: clang-format is not installed"; exit 77; }
files=$(find include src tools tests bench -name '*.cpp' -o -name '*.h')
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
