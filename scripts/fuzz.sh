#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, the "fuzz" preset: clang-14, ASan+UBSan) and runs each
# for SECONDS on its corpus (fuzz/corpus/<harness>/), JOBS harnesses at a time.
#
#   scripts/fuzz.sh              60 s each, 2 at a time (CI runs 20 s each: .ci/run)
#   scripts/fuzz.sh 3600 2       an hour each, for a longer hunt
#   scripts/fuzz.sh 600 2 apmt   one harness
#
# New inputs go to build/fuzz/corpus/<harness>/ (not into the repository); a crash leaves its
# input in build/fuzz/artifacts/ and makes the script fail. Turn every crash into a regression
# test in the normal suite (tests/unit/...) before fixing it. Prints executions per harness.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=${2:-2}
shift $(($# < 2 ? $# : 2))
export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-$(command -v ccache || true)}
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz -j "$jobs"
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in fuzz/corpus/*/; do harnesses+=("$(basename "$f")"); done
fi
out=build/fuzz
mkdir -p "$out/artifacts" "$out/logs"
run_one() {
  local h=$1 seconds=$2 out=$3
  mkdir -p "$out/corpus/$h"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: one taking 2 GB is a memory bomb.
  if "$out/fuzz/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$out/artifacts/$h-" "$out/corpus/$h" "fuzz/corpus/$h" > "$out/logs/$h.log" 2>&1; then
    echo "ok $h"
  else
    echo "FAILED $h (see $out/logs/$h.log and $out/artifacts/)"
  fi
}
export -f run_one
start=$(date +%s)
results=$(printf '%s\n' "${harnesses[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$seconds" "$out")
echo "$results"
printf '%-20s %14s %10s %8s\n' harness executions exec/s corpus
for h in "${harnesses[@]}"; do
  log=$out/logs/$h.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  printf '%-20s %14s %10s %8s\n' "$h" "${execs:-?}" "${rate:-?}" "$(ls "$out/corpus/$h" | wc -l)"
done
echo "fuzzing took $(( $(date +%s) - start )) s"
! grep -q '^FAILED' <<< "$results"
