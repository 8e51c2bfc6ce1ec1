#!/bin/sh
# nvcc_check.sh: rt.cuh's tensor-core and cp.async helpers under nvcc and NVRTC
# (compile only; no GPU). tests/sim/tc_nvcc.cu calls every helper:
#   - nvcc -c for sm_80 and sm_90 (every sm_80+ arch nvcc lists with ALL_ARCHS=1);
#   - nvcc -ptx for sm_90: the PTX must hold mma.sync.aligned.m16n8k16 (f16 and
#     bf16), m16n8k32 (s8, e4m3, e5m2), ldmatrix (x4, x2, .trans), cp.async (cg 16, ca 4, commit, wait_group)
#     mul.hi.u32 (Philox's __umulhi, for rand/randn/randint) and the atomic_add runs
#     (atom.global.add.v4/v2.f32, atom.add.noftz.f16x2/bf16x2);
#   - sm_75: compiles with the calls (they trap there) and without;
#   - NVRTC (as libtile2cu compiles): compute_75, 80 and 90, with the same PTX check;
#   - sm_90a: tests/sim/hopper_nvcc.cu (every Hopper helper) through ptxas with
#     -gencode arch=compute_90a,code=sm_90a, its PTX, and NVRTC compute_90a/sm_90a.
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
           'cp.async.wait_group 0' 'cp.async.wait_group 1' 'mul.hi.u32' \
           'atom.global.add.v4.f32' 'atom.global.add.v2.f32' 'red.global.add.noftz.f16x2' 'red.global.add.noftz.bf16x2' \
           'red.global.add.noftz.v4.f16x2' 'red.global.add.noftz.v2.f16x2' 'red.global.add.noftz.v4.bf16x2' \
           'red.global.add.noftz.v2.bf16x2' 'red.global.add.noftz.f16 ' 'red.global.add.noftz.bf16 '; do
    grep -qF "$w" "$out/tc_90.ptx" || fail "sm_90 PTX lacks $w"
  done
else
  fail "nvcc -ptx sm_90"
fi
# sm_90a: every Hopper helper through ptxas (-gencode, as the HOPPER notes
# advise), its PTX instructions, the trap fallbacks for sm_90 and sm_80, and
# tma_host.h run on the host (its error without a driver, or a map with one).
hsrc=$root/tests/sim/hopper_nvcc.cu
if "$nvcc" -std=c++17 -gencode arch=compute_90a,code=sm_90a -I"$root/rt" -Xptxas -v -o "$out/hopper_nvcc" "$hsrc" -ldl \
     > "$out/hopper_nvcc.log" 2>&1; then
  if grep -qi 'warning' "$out/hopper_nvcc.log"; then fail "nvcc sm_90a warnings: $(grep -i warning "$out/hopper_nvcc.log")"; fi
  "$out/hopper_nvcc" || fail "tma_host.h"
else
  cat "$out/hopper_nvcc.log" >&2; fail "nvcc sm_90a"
fi
if "$nvcc" -std=c++17 -arch=compute_90a -I"$root/rt" -ptx "$hsrc" -o "$out/hopper_90a.ptx"; then
  for w in 'wgmma.fence.sync.aligned' 'wgmma.commit_group.sync.aligned' 'wgmma.wait_group.sync.aligned 0' \
           'wgmma.wait_group.sync.aligned 1' 'wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16' \
           'wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16' \
           'wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8' 'wgmma.mma_async.sync.aligned.m64n256k32.s32.u8.u8' \
           'wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3' 'wgmma.mma_async.sync.aligned.m64n192k32.f32.e5m2.e5m2' 'mbarrier.init.shared::cta.b64' \
           'mbarrier.arrive.shared::cta.b64' 'mbarrier.arrive.expect_tx.shared::cta.b64' \
           'mbarrier.expect_tx.relaxed.cta.shared::cta.b64' 'mbarrier.try_wait.parity.shared::cta.b64' \
           'fence.proxy.async.shared::cta' 'fence.mbarrier_init.release.cluster' \
           'cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes' \
           'cp.async.bulk.tensor.2d.global.shared::cta.bulk_group' 'cp.async.bulk.commit_group' \
           'cp.async.bulk.wait_group.read 0' 'cp.async.bulk.wait_group 0' 'stmatrix.sync.aligned.m8n8.x1.shared.b16' \
           'stmatrix.sync.aligned.m8n8.x2.shared.b16' 'stmatrix.sync.aligned.m8n8.x4.trans.shared.b16'; do
    grep -qF "$w" "$out/hopper_90a.ptx" || fail "sm_90a PTX lacks $w"
  done
  [ "$(grep -c 'wgmma.mma_async' "$out/hopper_90a.ptx")" = 66 ] || fail "sm_90a PTX: not 66 wgmma.mma_async"
else
  fail "nvcc -ptx compute_90a"
fi
for a in 90 80; do
  "$nvcc" -std=c++17 -arch=sm_$a -I"$root/rt" -c "$hsrc" -o "$out/hopper_$a.o" || fail "nvcc sm_$a (Hopper helpers trap)"
done
# the generated wgmma block of rt.cuh is what tools/gen_wgmma.py prints
if command -v python3 > /dev/null; then
  python3 "$root/tools/gen_wgmma.py" > "$out/gen_wgmma.txt"
  awk '/^\/\/ ---- generated by tools\/gen_wgmma.py/,/^\/\/ ---- end of generated code/' "$root/rt/tile2cu/rt.cuh" |
    cmp -s - "$out/gen_wgmma.txt" || fail "rt.cuh's wgmma block differs from tools/gen_wgmma.py's"
fi
if ${CC:-cc} -std=c11 -I"$cuda/include" "$root/tests/sim/nvrtc_tc.c" -L"$cuda/lib64" -lnvrtc \
     -Wl,-rpath,"$cuda/lib64" -o "$out/nvrtc_tc"; then
  "$out/nvrtc_tc" "$root" "$cuda/include" 75 80 90 90a || fail "nvrtc"
else
  fail "building nvrtc_tc"
fi
echo "nvcc-check (tensor cores): archs 75 $archs 90a, $fails failed"
[ "$fails" = 0 ]
