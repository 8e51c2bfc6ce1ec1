#!/bin/sh
# tests/sanitized.sh COMMAND [ARG ...]
# Runs one step of `make test-asan` and fails it when the step fails OR when
# any sanitizer report appears in its output: a report from a child process
# (a Criterion worker, a kernel run by tile2cu run) does not always reach the
# step's exit status. The output is shown as it is, and kept in
# build-asan/last-step.log.
set -u
log=${ASAN_LOG:-build-asan/last-step.log}
mkdir -p "$(dirname "$log")"
"$@" > "$log" 2>&1
rc=$?
cat "$log"
if grep -qE '^==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: |^SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer)' "$log"; then
  echo "sanitized: a sanitizer reported an error in: $*" >&2
  exit 1
fi
[ $rc = 0 ] || echo "sanitized: exit status $rc: $*" >&2
exit $rc
