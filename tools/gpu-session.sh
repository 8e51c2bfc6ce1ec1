#!/bin/bash
# tools/gpu-session.sh [PHASE ...]: every GPU check of the project, sized for a lease of
# about 15 minutes of device time (two calls of 4-5 minutes each, the first one starting
# the machine). Logs under $OUT (or /tmp/gpu-session), a summary on stdout.
#
#   testgpu   the suite of make test-gpu (tests/gpu and examples; -j 15), then its sm_90a
#             pass (--target sm_90a --skip-same-as sm_90: the cases whose code differs)
#   sanwg     memcheck, racecheck and synccheck side by side on that sm_90a pass (before
#             2026-12-05 the harness passed no --target to a GPU run: the sm_90a cases ran
#             as sm_90, mma.sync)
#   sanall    the same three tools on the whole suite, side by side (longer: give it a
#             call of its own; SAN_LIMIT seconds, default 500)
#   bench     make bench's binary (about 10 s), with cuBLAS from /usr/local/cuda
#   peer      Triton and PyTorch on the same problems (peer.py, about 20 s)
#   pytest    tests/python/test_gpu.py on torch tensors (about 10 s)
#   tune      tile2cu tune of examples/gemm_f16.tl on sm_90a, 16 candidates (about 50 s)
#   tune90    the same on sm_90 (mma.sync): BK 32 at 3 or 4 stages fits 2 blocks per SM
#             (92-111 KB, 128 registers, the dot cut between its k steps) where the
#             example's BK 64, 4 stages fits 1 (160 registers, its fragments loaded a k
#             step ahead): the two forms side by side
#   tuneattn  tile2cu tune of examples/attention_f16.tl (D 64) on sm_90a: BK 64/128, 2/3/4
#             stages, 1/2 blocks per SM (12 candidates, some over the shared memory; B4 H16
#             S4096, about a minute)
#   ncu       Nsight Compute (--clock-control none) on one launch each of attention_f16 D128
#             sm_90a at key blocks of 64 and 128 and at 192 query rows (3 warpgroups), and
#             gemm_f16 mma.sync as the example (fragments a k step ahead, 1 block per SM), at
#             4 warps, 2 blocks per SM, and at 2 blocks per SM of 8 warps (the dot cut
#             between its k steps): tensor pipe, issue slots and warp stalls (about 3 minutes)
#   difftest  tlgen's programs on the GPU against tlgen's evaluation (difftest --backend
#             gpu): plain, sm_90a, strided, bf16, i8, f8, f64 and rand samples; needs
#             build/difftest carried too (make build/difftest)
# Default: testgpu bench peer pytest tune (about 4 minutes with a cold compile cache).
# On 2026-12-04 the first call ran testgpu, sanwg, bench, peer, pytest and tune.
#
# Prepare on the build machine, from the project root (the device has nvcc but no libyaml,
# so build here and carry the build), then call the device with
#   carry: .gpu build/tile2cu build/libtile2cu.so.0 build/bench/bench (build/difftest for difftest)
#   command: bash tools/gpu-session.sh [PHASE ...]
#     make all bench-build
#     mkdir -p .gpu && cp ../shared/bench/peer.py .gpu/
#     cp -L "$(ldconfig -p | awk '/libyaml-0.so.2 /{print $NF; exit}')" .gpu/
#     cc -std=c11 -D_GNU_SOURCE -O1 -Itranslator -o .gpu/gpu-tests tests/gpu/suite.c \
#        tests/gpu/harness.c translator/npy.c -lm
#     mkdir -p .git/info; grep -qx '/.gpu/' .git/info/exclude || echo /.gpu/ >> .git/info/exclude
cd "$(dirname "$0")/.." || exit 2
R=$PWD
OUT=${OUT:-/tmp/gpu-session}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH TILE2CU_CACHE_DIR=/tmp/t2c-cache PYTHONUNBUFFERED=1
mkdir -m 700 /tmp/t2c-cache 2>/dev/null
ldd build/tile2cu | grep -q "not found" && export LD_LIBRARY_PATH=$R/.gpu
T0=$(date +%s)
el() { echo "[$(($(date +%s) - T0)) s]"; }
{
  nvidia-smi -L
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  nvcc --version | tail -1
  build/tile2cu --version
  git log -1 --format='commit %h' 2>/dev/null
} > "$OUT/env.log" 2>&1
cat "$OUT/env.log"
GT=.gpu/gpu-tests
SUITE="--backend gpu --tile2cu build/tile2cu --dir tests/gpu --examples examples"

# sanitize NAME LIMIT_S JOBS [gpu-tests args]: the three tools side by side, one log
sanitize() {
  local name=$1 limit=$2 jobs=$3 t x
  shift 3
  for t in memcheck racecheck synccheck; do
    x=""
    [ $t = memcheck ] && x="--leak-check full"
    # shellcheck disable=SC2086
    timeout -k 5 "$limit" compute-sanitizer --tool $t $x --target-processes all --error-exitcode 86 \
      --print-limit 20 $GT $SUITE -j "$jobs" --timeout 600 "$@" > "$OUT/$name-$t.log" 2>&1 &
  done
  wait
  echo "== $name $(el)"
  for t in memcheck racecheck synccheck; do
    echo "$name $t: $(grep -E '^tests/gpu: [0-9]+ cases' "$OUT/$name-$t.log" | tail -1);" \
      "$(grep -cE '^  [a-z]' "$OUT/$name-$t.log") case lines;" \
      "$(grep -cE 'ERROR SUMMARY: [1-9]|[1-9][0-9]* hazards? displayed \([1-9]' "$OUT/$name-$t.log") reports"
  done
}

[ $# -gt 0 ] || set -- testgpu bench peer pytest tune
for p in "$@"; do
  case $p in
  testgpu)
    # shellcheck disable=SC2086
    timeout -k 5 300 $GT $SUITE -j 15 > "$OUT/testgpu.log" 2>&1
    echo "== testgpu $(el) exit $?"
    grep -E "FAIL|cases|skipped" "$OUT/testgpu.log" | tail -15
    # shellcheck disable=SC2086
    timeout -k 5 200 $GT $SUITE -j 15 --target sm_90a --skip-same-as sm_90 > "$OUT/testgpu-sm90a.log" 2>&1
    echo "== testgpu sm_90a $(el) exit $?"
    grep -E "FAIL|cases|skipped" "$OUT/testgpu-sm90a.log" | tail -15 ;;
  sanwg)
    # shellcheck disable=SC2086
    sanitize sanwg 280 5 --target sm_90a --skip-same-as sm_90 ;;
  sanall)
    sanitize sanall "${SAN_LIMIT:-500}" 5 ;;
  bench)
    CUBLAS_LIB=$(find /usr/local/cuda/lib64/ -name 'libcublas.so*' 2>/dev/null | sort | head -1)
    export CUBLAS_LIB
    timeout -k 5 150 build/bench/bench > "$OUT/bench.log" 2>&1
    echo "== bench $(el) exit $? (cuBLAS: $CUBLAS_LIB)"
    grep -vE "^\s*$" "$OUT/bench.log" | tail -45 ;;
  peer)
    timeout -k 5 120 python3 .gpu/peer.py > "$OUT/peer.log" 2>&1
    echo "== peer $(el) exit $?"
    grep "^peer" "$OUT/peer.log" ;;
  pytest)
    TILE2CU_LIB=$R/build/libtile2cu.so.0 PYTHONPATH=$R/python timeout -k 5 90 \
      python3 -m pytest -q -p no:cacheprovider -rs tests/python/test_gpu.py > "$OUT/pytest.log" 2>&1
    echo "== pytest $(el) exit $?"
    tail -5 "$OUT/pytest.log" ;;
  tune)
    timeout -k 5 150 build/tile2cu tune examples/gemm_f16.tl --kernel gemm_f16 \
      --space 'BM=64,128 BN=128,256 BK=32,64 STAGES=3,4' --sizes 'M=4096 N=4096 K=4096' --target sm_90a \
      -o "$OUT/gemm_f16.tuned.yaml" > "$OUT/tune.log" 2>&1
    echo "== tune $(el) exit $?"
    grep -vE "^candidate" "$OUT/tune.log" | tail -20 ;;
  difftest)
    : > "$OUT/difftest.log"
    DT="timeout -k 5 60 build/difftest --tile2cu build/tile2cu --backend gpu -j 14"
    for o in "--seeds 1:201" "--seed-file tests/fuzz/wg-seeds.txt --target sm_90a" "--seeds 1:61 --strided" \
      "--seeds 1:61 --bf16" "--seed-file tests/fuzz/i8-seeds.txt --i8" "--seed-file tests/fuzz/f8-seeds.txt --f8" \
      "--seeds 1:61 --f64" "--seeds 1:61 --rand"; do
      # shellcheck disable=SC2086
      $DT $o >> "$OUT/difftest.log" 2>&1
      echo "difftest $o: exit $? $(grep -E '^difftest: [0-9]+ programs' "$OUT/difftest.log" | tail -1)"
    done
    echo "== difftest $(el)" ;;
  ncu)
    CUBLAS_LIB=$(find /usr/local/cuda/lib64/ -name 'libcublas.so*' 2>/dev/null | sort | head -1)
    export CUBLAS_LIB
    : > "$OUT/ncu.log"
    for rk in "attention_f16 D128 sm_90a wgmma=attention_f16_d128_sm90a" \
      "attention_f16 D128 sm_90a BK128=attention_f16_d128_bk128_sm90a" \
      "attention_f16 D128 sm_90a BQ192=attention_f16_d128_bq192_sm90a" "gemm_f16=gemm_f16" \
      "gemm_f16 4 warps 2 blocks/SM=gemm_f16_w4" "gemm_f16 2 blocks/SM=gemm_f16_mb2"; do
      timeout -k 5 60 ncu --clock-control none --kernel-name "${rk#*=}" --launch-skip 2 --launch-count 1 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
        --section Occupancy --section LaunchStats build/bench/bench --quick --reps 10 --only "${rk%%=*}" >> "$OUT/ncu.log" 2>&1
      echo "ncu ${rk#*=}: exit $?"
    done
    echo "== ncu $(el)"
    grep -E '^  [a-z_0-9]+\(|Warp Cycles Per Issued|No Eligible|Issued Warp Per|Achieved Occupancy|Registers Per|Compute \(SM\) Throughput|Duration' \
      "$OUT/ncu.log" | head -60 ;;
  tuneattn)
    timeout -k 5 200 build/tile2cu tune examples/attention_f16.tl --kernel attention_f16 \
      --space 'BK=64,128 STAGES=2,3,4 MINB=1,2' --sizes 'B=4 H=16 S=4096 scale=0.125 causal=0' --target sm_90a \
      -o "$OUT/attention_f16.tuned.yaml" > "$OUT/tuneattn.log" 2>&1
    echo "== tuneattn $(el) exit $?"
    grep -vE "^candidate" "$OUT/tuneattn.log" | tail -16 ;;
  tune90)
    timeout -k 5 150 build/tile2cu tune examples/gemm_f16.tl --kernel gemm_f16 \
      --space 'BM=64,128 BN=128 BK=32,64 STAGES=2,3,4' --sizes 'M=4096 N=4096 K=4096' --target sm_90 \
      -o "$OUT/gemm_f16.sm90.tuned.yaml" > "$OUT/tune90.log" 2>&1
    echo "== tune90 $(el) exit $?"
    grep -vE "^candidate" "$OUT/tune90.log" | tail -16 ;;
  *)
    echo "gpu-session: unknown phase $p (testgpu sanwg sanall bench peer pytest tune tune90 tuneattn ncu difftest)"
    exit 2 ;;
  esac
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
echo "== done $(el)"
