#!/bin/sh
# tests/gpu/run.sh [--backend sim|gpu] [-j N] [TEST ...]
# Builds the numerical test harness (tests/gpu/suite.c, harness.c) into build/
# and runs every kernel of tests/gpu and examples/ against references computed
# in C. --backend gpu skips cleanly (exit 0) when tile2cu has no usable GPU.
set -e
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
mkdir -p build
[ -x build/tile2cu ] || make -s build/tile2cu
$CC -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation \
    -Itranslator -o build/gpu-tests tests/gpu/suite.c tests/gpu/harness.c translator/npy.c -lm
exec build/gpu-tests --tile2cu build/tile2cu --dir tests/gpu --examples examples "$@"
