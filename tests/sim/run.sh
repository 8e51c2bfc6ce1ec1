#!/bin/sh
# run.sh: the CPU backend's own tests. Builds tests/sim/driver.c with
# rt/sim/simrun.c (and common/fsafe.c), which compiles tests/sim/kernels.cu
# into a shared object and runs every kernel in it; then tests/sim/hopper.c the
# same way with tests/sim/hopper_kernels.cu. Exits nonzero on any failure.
# races.sh then runs racy .tl kernels through `tile2cu run` (building tile2cu
# when it is missing), which must report the race.
# Then nvcc_check.sh compiles rt.cuh's tensor-core and cp.async helpers with
# nvcc and NVRTC (skipped without nvcc, or with NVCC_CHECK=0).
# Environment: CC (default cc), CXX (default g++), BUILD (default build),
# CUDA_HOME (default /usr/local/cuda), SANITIZE=1 for AddressSanitizer.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${BUILD:-$root/build}/sim
mkdir -p "$out"
flags="-std=c11 -O1 -g -Wall -Wextra -D_GNU_SOURCE"
[ "${SANITIZE:-0}" = 1 ] && flags="$flags -fsanitize=address,undefined -fno-omit-frame-pointer"
${CC:-cc} $flags -I"$root/rt/sim" "$root/tests/sim/driver.c" "$root/rt/sim/simrun.c" \
  "$root/common/fsafe.c" -o "$out/driver" -ldl -lm
"$out/driver" "$root" "$out"
# the sm_90a emulation (mbarrier, TMA, stmatrix, wgmma): tests/sim/hopper.c
${CC:-cc} $flags -I"$root/rt/sim" "$root/tests/sim/hopper.c" "$root/rt/sim/simrun.c" \
  "$root/common/fsafe.c" -o "$out/hopper" -ldl -lm
"$out/hopper" "$root" "$out"
t2c=${BUILD:-$root/build}/tile2cu
[ -x "$t2c" ] || make -s -C "$root" B="${BUILD:-build}" "${BUILD:-build}/tile2cu"
sh "$root/tests/sim/races.sh" "$t2c" "$out"
[ "${NVCC_CHECK:-1}" = 0 ] || sh "$root/tests/sim/nvcc_check.sh"
