#!/bin/sh
# tests/host/run.sh: the --host and --header outputs from the host compilers, no GPU
# (make host-test, in make test):
#   1. the headers of several .tl files in one translation unit, C and C++: f16/scale.tl
#      and f32/scale.tl (one base name; f16 tensor and scalar: C's __half) and types.tl
#      (every type C gets as its bits), each header's guard and C typedefs its own;
#   2. --header with -MD: the depfile names the header as a target too;
#   3. -o - writes the CUDA on stdout, and no file named '-';
#   4. compile -o - (when NVRTC loads): the PTX or cubin on stdout, the bytes -o FILE
#      writes, and no file '-'; a cubin to a terminal (through script(1)) is refused;
#   5. with nvcc: a --host launcher whose @grid and @assume divide by scalars returns
#      cudaErrorInvalidValue for a divisor of 0 or below (it took SIGFPE), and for a dim
#      out of range, before any CUDA call (so no GPU is needed);
#   6. tile2cu run notes a kernel that reads ctx.block.x with no @grid for it, and runs a
#      kernel of a file whose other kernel no target can hold.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
T=${TILE2CU:-$root/build/tile2cu}
CUDA=${CUDA:-/usr/local/cuda}
CC=${CC:-cc}
CXX=${CXX:-g++}
cd "$root/tests/host"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pass=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

if [ ! -f "$CUDA/include/cuda_runtime.h" ]; then
  echo "host: skipped (no $CUDA/include/cuda_runtime.h)"
  exit 0
fi

# 1. three headers, two from files named scale.tl, in one C and one C++ file
mkdir -p "$tmp/f16" "$tmp/f32"
for f in f16/scale f32/scale types; do
  "$T" -w --header "$tmp/$f.h" "$f.tl" -o "$tmp/$f.cu" || bad "translate $f.tl"
done
cat > "$tmp/main.c" <<'C'
#include "f32/scale.h"
#include "f16/scale.h"
#include "types.h"
#include "f32/scale.h"
void *launchers[] = {(void *)tile2cu_launch_scale_f32, (void *)tile2cu_launch_scale_f16, (void *)tile2cu_launch_k};
int main(void) { return 0; }
C
cp "$tmp/main.c" "$tmp/main.cpp"
if $CC -std=c11 -Wall -Wextra -Werror -I "$CUDA/include" -I "$tmp" -c "$tmp/main.c" -o "$tmp/main_c.o" 2> "$tmp/err"; then ok
else bad "three --header files in one C file"; head -20 "$tmp/err"; fi
if $CXX -std=c++17 -Wall -Wextra -Werror -I "$CUDA/include" -I "$tmp" -c "$tmp/main.cpp" -o "$tmp/main_cpp.o" 2> "$tmp/err"; then ok
else bad "three --header files in one C++ file"; head -20 "$tmp/err"; fi

# 2. the depfile's targets
mkdir "$tmp/dep"
printf 'kernel k(X: tensor<f32>[N], s: f16) {\n  X[0 :+ 128] = X[0 :+ 128] * f32(s) * 3.0\n}\n' > "$tmp/dep/k.tl"
(cd "$tmp/dep" && "$T" -w --header k.h k.tl -o k.cu -MD) || bad "translate with -MD"
if head -1 "$tmp/dep/k.cu.d" | grep -q '^k\.cu k\.h: k\.tl '; then ok
else bad "the depfile does not name the header"; cat "$tmp/dep/k.cu.d"; fi

# 3. -o -: stdout
mkdir "$tmp/stdout"
cp types.tl "$tmp/stdout/"
(cd "$tmp/stdout" && "$T" -w types.tl -o - > out.cu && "$T" -w types.tl > want.cu) || bad "-o -"
if [ ! -e "$tmp/stdout/-" ] && [ -s "$tmp/stdout/out.cu" ] && cmp -s "$tmp/stdout/want.cu" "$tmp/stdout/out.cu"; then ok
else bad "-o - did not write stdout"; ls "$tmp/stdout"; fi

# 4. compile -o -: stdout
export TILE2CU_CACHE_DIR="$tmp/cache"
if "$T" compile -w types.tl --ptx -o "$tmp/stdout/want.ptx" 2> "$tmp/err"; then
  for kind in ptx cubin; do
    flag=; [ $kind = ptx ] && flag=--ptx
    (cd "$tmp/stdout" && "$T" compile -w types.tl $flag -o - > out.$kind && "$T" compile -w types.tl $flag -o want.$kind) \
      2> "$tmp/err" || { bad "compile $flag -o -"; cat "$tmp/err"; }
    if [ ! -e "$tmp/stdout/-" ] && [ -s "$tmp/stdout/out.$kind" ] && cmp -s "$tmp/stdout/want.$kind" "$tmp/stdout/out.$kind"
    then ok; else bad "compile $flag -o - did not write stdout"; ls "$tmp/stdout"; fi
  done
  if command -v script > /dev/null; then
    # stdin from /dev/null: script passes what it reads on to the terminal, and an inherited
    # stdin (a job runner's pipe) once fed it bytes that interrupted the run (exit 130)
    (cd "$tmp/stdout" && script -qec "'$T' compile -w types.tl -o -" /dev/null < /dev/null > "$tmp/tty" 2>&1)
    st=$?
    if [ $st = 2 ] && grep -q "a cubin is binary and stdout is a terminal" "$tmp/tty" && [ ! -e "$tmp/stdout/-" ]; then ok
    else bad "compile -o - on a terminal: exit $st"; cat "$tmp/tty"; fi
  fi
else
  echo "host: compile -o - skipped ($(head -1 "$tmp/err"))"
fi

# 5. a divisor of 0 in @grid: an error from the launcher, not SIGFPE
NVCC=${NVCC:-$CUDA/bin/nvcc}
if [ -x "$NVCC" ]; then
  mkdir "$tmp/div"
  cat > "$tmp/div/div.tl" <<'TL'
@launch(128)
@assume(N % d == 0)
@grid(cdiv(N, s), M / d)
kernel divs(X: tensor<f32>[M, N], s: i32, d: i32) {
  X[ctx.block.y, ctx.block.x] = 1.0
}
TL
  cat > "$tmp/div/main.cpp" <<'CPP'
#include <cstdio>
#include "div.h"
int main() {
  struct { int s, d, M, N; } bad[] = {{0, 1, 4, 128}, {-64, 1, 4, 128}, {64, 0, 4, 128}, {64, -1, 4, 128},
                                       {64, 1, 65536, 128}, {64, 1, 0, 128}};
  int fails = 0;
  for (auto &b : bad) {
    cudaError_t e = tile2cu_launch_divs(nullptr, b.s, b.d, b.M, b.N, 0);
    if (e != cudaErrorInvalidValue) {
      std::printf("s=%d d=%d M=%d N=%d: %d, want cudaErrorInvalidValue\n", b.s, b.d, b.M, b.N, (int)e);
      fails++;
    }
  }
  return fails;
}
CPP
  if "$T" -w --header "$tmp/div/div.h" "$tmp/div/div.tl" -o "$tmp/div/div.cu" &&
     "$NVCC" -arch=sm_90 -I "$root/rt" -I "$tmp/div" -o "$tmp/div/app" "$tmp/div/main.cpp" "$tmp/div/div.cu" 2> "$tmp/err"; then
    "$tmp/div/app" > "$tmp/out" 2>&1
    st=$?
    if [ $st = 0 ]; then ok; else bad "launcher with a divisor of 0: exit $st"; cat "$tmp/out"; fi
  else bad "build the divisor launcher"; head -20 "$tmp/err"; fi
else
  echo "host: the divisor launcher skipped (no $NVCC)"
fi

# 6. tile2cu run of a kernel that reads ctx.block.x with no @grid: it runs one block, and a
#    note says so (a user forgot @grid and got one row of three); with --grid, or with an
#    @grid for that dim, no note. The file also holds a kernel no target can hold.
mkdir -p "$tmp/nogrid"
cat > "$tmp/nogrid/k.tl" <<'TL'
@launch(128)
kernel rowcopy(X: tensor<f32>[M, 128], Y: tensor<f32>[M, 128]) {
  Y[ctx.block.x :+ 1, 0 :+ 128] = X[ctx.block.x :+ 1, 0 :+ 128]
}

@launch(128)
@grid(M)
kernel rowcopy_grid(X: tensor<f32>[M, 128], Y: tensor<f32>[M, 128]) {
  Y[ctx.block.x :+ 1, 0 :+ 128] = X[ctx.block.x :+ 1, 0 :+ 128]
}

@launch(128)
kernel too_big(X: tensor<f32>[256, 512], Y: tensor<f32>[512, 256]) {
  var t = X[0 :+ 256, 0 :+ 512]
  Y[0 :+ 512, 0 :+ 256] = transpose(t)
}
TL
# too_big's 525312 bytes of shared memory fit no target: translating the file is an
# error, and tile2cu run of another of its kernels lowers only that one (it was refused)
if "$T" --check "$tmp/nogrid/k.tl" 2> "$tmp/nogrid/err"; then bad "--check of a kernel too big for the target passed"
elif grep -q "kernel 'too_big' needs 525312 bytes of shared memory" "$tmp/nogrid/err"; then ok
else bad "--check of a kernel too big: not the shared-memory error"; cat "$tmp/nogrid/err"; fi
# X: a 3 x 128 f32 .npy of ones, written without numpy (format 1.0: magic, header length,
# the header padded with spaces to 64 bytes in all, then the data)
python3 - "$tmp/nogrid/x.npy" <<'PY'
import struct, sys
h = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 128), }"
h += " " * (64 - 10 - len(h) - 1) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<384f", *[1.0] * 384))
PY
if [ ! -f "$tmp/nogrid/x.npy" ]; then bad "write x.npy"
else for c in "rowcopy:" "rowcopy:--grid 3" "rowcopy_grid:"; do
  k=${c%%:*} g=${c#*:}
  # shellcheck disable=SC2086
  if TILE2CU_CACHE_DIR="$tmp/nogrid/cache" "$T" run "$tmp/nogrid/k.tl" --kernel "$k" --backend sim -w $g \
       X="$tmp/nogrid/x.npy" Y="$tmp/nogrid/y.npy" > /dev/null 2> "$tmp/nogrid/err"; then
    want=0; [ "$c" = "rowcopy:" ] && want=1
    got=$(grep -c "reads ctx.block.x, and no @grid sets that dim: it runs 1 block along x" "$tmp/nogrid/err")
    if [ "$got" = "$want" ]; then ok; else bad "tile2cu run $k $g: the no-@grid note $got times, want $want"; cat "$tmp/nogrid/err"; fi
  else bad "tile2cu run $k $g"; cat "$tmp/nogrid/err"; fi
done; fi

echo "host: $pass passed, $fail failed"
[ $fail = 0 ]
