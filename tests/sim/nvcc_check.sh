#!/bin/sh
# nvcc_check.sh: rt.cuh's tensor-core and cp.async helpers under nvcc and NVRTC
# (compile only; no GPU). tests/sim/tc_nvcc.cu calls every helper:
#   - nvcc -c for sm_80 and sm_90 (every sm_80+ arch nvcc lists with ALL_ARCHS=1);
#   - nvcc -ptx for sm_90: the PTX must hold mma.sync.aligned.m16n8k16 (f16 and
#     bf16), m16n8k32 (s8, e4m3, e5m2), ldmatrix (x4, x2, .trans), cp.async (cg 16, ca 4, commit, wait_group)
#     and mul.hi.u32 (Philox's __umulhi, for rand/randn/randint);
#   - sm_75: compiles with the calls (they trap there) and without;
#   - NVRTC (as libtile2cu compiles): compute_75, 80 and 90, with the same PTX check.
# Skipped (exit 0) when nvcc is missing. Environment: CUDA_HOME, BUILD, ALL_ARCHS.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
out=${BUILD:-$root/build}/sim/nvcc
if [ ! -x "$nvcc" ]; then echo "nvcc-check (tensor cores): skipped, no $nvcc"; exit 0; fi
mkdir -p "$out"
src=$root/tests/sim/tc_nvcc.cu
fails=0
fail() { echo "FAIL $*" >&2; fails=$((fails + 1)); }
archs="80 90"
[ "${ALL_ARCHS:-0}" = 1 ] && archs=$("$nvcc" --list-gpu-arch | sed -n 's/^compute_//p' | awk '$1 >= 80' | tr '\n' ' ')
for a in $archs; do
  "$nvcc" -std=c++17 -arch=sm_$a -I"$root/rt" -c "$src" -o "$out/tc_$a.o" || fail "nvcc sm_$a"
done
"$nvcc" -std=c++17 -arch=sm_75 -I"$root/rt" -c "$src" -o "$out/tc_75.o" || fail "nvcc sm_75 (calls)"
"$nvcc" -std=c++17 -arch=sm_75 -I"$root/rt" -DT2C_NO_CALLS -c "$src" -o "$out/tc_75n.o" || fail "nvcc sm_75"
if "$nvcc" -std=c++17 -arch=sm_90 -I"$root/rt" -ptx "$src" -o "$out/tc_90.ptx"; then
  for w in 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' 'mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32' \
           'mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32' \
           'mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32' 'mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32' \
           'ldmatrix.sync.aligned.m8n8.x4.shared.b16' 'ldmatrix.sync.aligned.m8n8.x2.shared.b16' \
           'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16' 'ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16' \
           'cp.async.cg.shared.global' 'cp.async.ca.shared.global' 'cp.async.commit_group' \
           'cp.async.wait_group 0' 'cp.async.wait_group 1' 'mul.hi.u32'; do
    grep -qF "$w" "$out/tc_90.ptx" || fail "sm_90 PTX lacks $w"
  done
else
  fail "nvcc -ptx sm_90"
fi
if ${CC:-cc} -std=c11 -I"$cuda/include" "$root/tests/sim/nvrtc_tc.c" -L"$cuda/lib64" -lnvrtc \
     -Wl,-rpath,"$cuda/lib64" -o "$out/nvrtc_tc"; then
  "$out/nvrtc_tc" "$root" "$cuda/include" 75 80 90 || fail "nvrtc"
else
  fail "building nvrtc_tc"
fi
echo "nvcc-check (tensor cores): archs 75 $archs, $fails failed"
[ "$fails" = 0 ]
