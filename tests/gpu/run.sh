#!/bin/sh
# tests/gpu/run.sh [--backend sim|gpu] [-j N] [TEST ...]
# Builds the numerical test harness (tests/gpu/suite.c, harness.c) into $B
# (default build/) and runs every kernel of tests/gpu and examples/ with
# $B/tile2cu against references computed in C. --backend gpu skips cleanly
# (exit 0) when tile2cu has no usable GPU. CFLAGS_EXTRA: added to the
# harness's flags (make test-asan builds it with the sanitizers).
set -e
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
b=${B:-build}
mkdir -p "$b"
[ -x "$b/tile2cu" ] || make -s "$b/tile2cu"
$CC -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation \
    ${CFLAGS_EXTRA:-} -Itranslator -o "$b/gpu-tests" tests/gpu/suite.c tests/gpu/harness.c translator/npy.c -lm
exec "$b/gpu-tests" --tile2cu "$b/tile2cu" --dir tests/gpu --examples examples "$@"
