#!/bin/sh
# tests/gpu/sanitize.sh [TEST ...]
#
# Runs every kernel of the numerical suite (tests/gpu and examples/, as
# tests/gpu/run.sh --backend gpu does) under compute-sanitizer, once per tool:
#
#   memcheck   out-of-bounds and misaligned global/shared accesses, leaks
#   racecheck  shared-memory hazards between threads (a missing barrier)
#   synccheck  invalid uses of __syncthreads and warp-synchronous operations
#
# Each `tile2cu run` the suite starts is a child process, so compute-sanitizer
# follows children (--target-processes all) and its --error-exitcode makes a
# report fail that case. The results of the suite's comparisons still apply.
# Needs a CUDA device and compute-sanitizer ($CUDA_HOME/bin, or
# $CUDA_HOME/compute-sanitizer, or PATH). Without a device it says so and
# exits 0 ("skipped"), like make test-gpu; without compute-sanitizer, 2.
# Logs: build/sanitize-TOOL.log. Summary: one line per tool, then an overall
# status line.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cuda=${CUDA_HOME:-/usr/local/cuda}
cs=""
for c in "$cuda/bin/compute-sanitizer" "$cuda/compute-sanitizer/compute-sanitizer" "$(command -v compute-sanitizer 2>/dev/null)"; do
  [ -n "$c" ] && [ -x "$c" ] && { cs=$c; break; }
done
[ -x build/tile2cu ] || make -s build/tile2cu || exit 2
${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation \
  -Itranslator -o build/gpu-tests tests/gpu/suite.c tests/gpu/harness.c translator/npy.c -lm || exit 2

# the suite's own probe: it says "skipped:" when tile2cu finds no usable device
probe=$(build/gpu-tests --backend gpu --tile2cu build/tile2cu --dir tests/gpu --examples examples squares 2>&1)
case $probe in
  *"skipped:"*) echo "sanitize: skipped: no usable CUDA device"; exit 0 ;;
esac
if [ -z "$cs" ]; then
  echo "sanitize: compute-sanitizer not found (looked in $cuda/bin, $cuda/compute-sanitizer and PATH)" >&2
  exit 2
fi

status=0
for tool in memcheck racecheck synccheck; do
  log=build/sanitize-$tool.log
  extra=""
  [ "$tool" = memcheck ] && extra="--leak-check full"
  # shellcheck disable=SC2086
  "$cs" --tool "$tool" $extra --target-processes all --error-exitcode 86 --print-limit 20 \
    build/gpu-tests --backend gpu --tile2cu build/tile2cu --dir tests/gpu --examples examples -j 1 --timeout 600 "$@" \
    > "$log" 2>&1
  rc=$?
  summary=$(grep -E '^tests/gpu: [0-9]+ cases' "$log" | tail -1)
  reports=$(grep -c 'ERROR SUMMARY: [1-9]' "$log")
  echo "sanitize: $tool: ${summary:-no summary (see $log)}; $reports process(es) with sanitizer errors"
  if [ $rc != 0 ] || [ "$reports" != 0 ] || [ -z "$summary" ]; then
    status=1
    grep -E 'FAIL|ERROR SUMMARY: [1-9]|Invalid|Race|Barrier' "$log" | head -20
  fi
done
[ $status = 0 ] && echo "sanitize: memcheck, racecheck and synccheck: no errors" || echo "sanitize: FAILED (logs in build/sanitize-*.log)"
exit $status
