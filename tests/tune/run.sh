#!/bin/sh
# tests/tune/run.sh: `tile2cu tune` without a GPU (make tune-test, in make test).
#
#   1. argument errors: each exits 2 with its one-line message (golden, below), and
#      --sizes values read against the kernel's scalar types (scalars.tl);
#   2. no GPU: without --dry-run, tune says so and exits 2 (TILE2CU_LIBCUDA points
#      at no driver, so the message is the same on every machine);
#   3. --dry-run on transpose.tl: each candidate's line is rebuilt from
#      `tile2cu report -D ...` of that candidate, each skipped one's reason from
#      `tile2cu --check -D ...` (the translation's first error) or the @assume;
#   4. tuning files: `tile2cu --tuned` gives the CUDA that `tile2cu -D ...` gives
#      for the entry of the source's SHA-256 (from sha256sum) and target, notes a
#      file without an entry, refuses a malformed file and entries that disagree
#      unless --tuned-sizes picks one; entries for two kernels of two.tl apply when they
#      agree, and --tuned-kernel picks one when they do not.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
T=${TILE2CU:-$root/build/tile2cu}
cd "$root/tests/tune"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TILE2CU_CACHE_DIR="$tmp/cache"
fail=0
pass=0

# expect STATUS MESSAGE -- ARGS...: tune ARGS exits STATUS with MESSAGE as its whole stderr.
expect() {
  want_st=$1 want_err=$2
  shift 3
  "$T" tune "$@" > "$tmp/out" 2> "$tmp/err"
  st=$?
  if [ "$st" != "$want_st" ] || [ "$(cat "$tmp/err")" != "$want_err" ]; then
    echo "FAIL: tune $*: exit $st (want $want_st), stderr:"; cat "$tmp/err"; echo "want: $want_err"; fail=1
  else pass=$((pass + 1)); fi
}

K="--kernel tr"
S="--space BM=32,64"
expect 2 "tile2cu tune: no .tl file (usage: tile2cu tune FILE.tl --kernel NAME --space SPEC --sizes SPEC)" -- $K $S
expect 2 "tile2cu tune: --kernel NAME is required" -- transpose.tl $S --dry-run
expect 2 "tile2cu tune: --space 'NAME=V1,V2 ...' is required" -- transpose.tl $K --dry-run
expect 2 "tile2cu tune: --sizes 'M=4096 ...' is required (but with --dry-run)" -- transpose.tl $K $S
expect 2 "tile2cu tune: --space: 'BM' is not NAME=V1,V2,... (NAME a file-level const)" -- transpose.tl $K --space BM --dry-run
expect 2 "tile2cu tune: --space: '1X=2' is not NAME=V1,V2,... (NAME a file-level const)" -- transpose.tl $K --space 1X=2 --dry-run
expect 2 "tile2cu tune: --space: BM is given twice" -- transpose.tl $K --space "BM=1 BM=2" --dry-run
expect 2 "tile2cu tune: --space: BM lists 32 twice" -- transpose.tl $K --space BM=32,32 --dry-run
expect 2 "tile2cu tune: --space: BM=abc: a value is an integer or float literal" -- transpose.tl $K --space BM=32,abc --dry-run
expect 2 "tile2cu tune: --space: BM has no values" -- transpose.tl $K --space BM= --dry-run
expect 2 "tile2cu tune: --space: BM has an empty value" -- transpose.tl $K --space BM=32, --dry-run
expect 2 "tile2cu tune: --space is empty: give NAME=V1,V2,..." -- transpose.tl $K --space " " --dry-run
expect 2 "tile2cu tune: --space gives 289 candidates; at most 256" -- transpose.tl $K --dry-run \
  --space "BM=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17 BN=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"
expect 2 "tile2cu tune: --sizes: 'M' is not NAME=VALUE" -- transpose.tl $K $S --sizes M --dry-run
expect 2 "tile2cu tune: --sizes: M is given twice" -- transpose.tl $K $S --sizes "M=1 M=2" --dry-run
expect 2 "tile2cu tune: --sizes: kernel tr has no size or scalar 'Q'" -- transpose.tl $K $S --sizes "M=512 N=300 Q=1" --dry-run
expect 2 "tile2cu tune: --sizes: size N of kernel tr is not given" -- transpose.tl $K $S --sizes "M=512" --dry-run
expect 2 "tile2cu tune: --sizes: M=0: a size is an integer from 1 to 2147483647" -- transpose.tl $K $S --sizes "M=0 N=3" --dry-run
# a value that is no number for its scalar's type names the type (it said "'p=abc' is not NAME=VALUE")
Q="--kernel sc --space BN=64 --dry-run"
expect 2 "tile2cu tune: --sizes: scalar p=abc: expected a number (p is f32)" -- scalars.tl $Q --sizes "N=256 p=abc"
expect 2 "tile2cu tune: --sizes: scalar n=abc: expected an integer (n is i32)" -- scalars.tl $Q --sizes "N=256 n=abc"
expect 2 "tile2cu tune: --sizes: scalar n=2.5: i32 takes an integer" -- scalars.tl $Q --sizes "N=256 n=2.5"
expect 2 "tile2cu tune: --sizes: scalar n=3000000000: outside [-2147483648, 2147483647], the range of i32" -- scalars.tl $Q --sizes "N=256 n=3000000000"
expect 2 "tile2cu tune: --sizes: scalar h=abc: expected a number (h is f16)" -- scalars.tl $Q --sizes "N=256 h=abc"
expect 2 "tile2cu tune: --sizes: scalar b=yes: expected a number, true or false (b is bool)" -- scalars.tl $Q --sizes "N=256 b=yes"
expect 2 "tile2cu tune: --sizes: N=abc: a size is an integer from 1 to 2147483647" -- scalars.tl $Q --sizes "N=abc"
"$T" tune scalars.tl $Q --sizes "N=256 p=0.5 n=0x10 h=6e-8 b=true" > "$tmp/out" 2> "$tmp/err" && grep -q "1 fit" "$tmp/out" \
  && pass=$((pass + 1)) || { echo "FAIL: tune scalars.tl with good --sizes:"; cat "$tmp/out" "$tmp/err"; fail=1; }
"$T" tune scalars.tl $Q --sizes "N=256 n=-1" > "$tmp/out" 2> "$tmp/err"; grep -q "@assume condition 1 of kernel 'sc' (line 5) is false (n = -1)$" "$tmp/out" \
  && pass=$((pass + 1)) || { echo "FAIL: tune scalars.tl n=-1 is not skipped by @assume:"; cat "$tmp/out" "$tmp/err"; fail=1; }
expect 2 "tile2cu tune: --warmup takes 0 to 1000, not '-1'" -- transpose.tl $K $S --warmup -1 --dry-run
expect 2 "tile2cu tune: --reps takes 1 to 10000, not '0'" -- transpose.tl $K $S --reps 0 --dry-run
expect 2 "tile2cu tune: unknown or incomplete option '--bogus'" -- transpose.tl $K $S --bogus
expect 2 "tile2cu tune: -o -: the tuning file cannot go to stdout (tune prints the candidates there, and updates the file in place); give -o FILE.yaml" -- transpose.tl $K $S -o - --dry-run
expect 2 "tile2cu tune: more than one .tl file ('b.tl')" -- transpose.tl b.tl $K $S --dry-run
expect 2 "tile2cu tune: unknown target 'sm_12'" -- transpose.tl $K $S --target sm_12 --dry-run
expect 2 "tile2cu tune: cannot open nothing.tl: No such file or directory" -- nothing.tl $K $S --dry-run
expect 2 "tile2cu tune: transpose.tl has no kernel 'nope' (kernels: tr)" -- transpose.tl --kernel nope $S --dry-run
[ -s "$tmp/out" ] && { echo "FAIL: tune --kernel nope printed on stdout:"; cat "$tmp/out"; fail=1; }
expect 2 "tile2cu tune: two.tl has no kernel 'ab' (kernels: a, b)" -- two.tl --kernel ab --space BN=32 --dry-run

# 2. no GPU
TILE2CU_LIBCUDA=/nonexistent/libcuda.so.1 expect 2 "tile2cu tune: timing needs a GPU, and there is none (no CUDA device: cannot load the CUDA driver (/nonexistent/libcuda.so.1): /nonexistent/libcuda.so.1: cannot open shared object file: No such file or directory); --dry-run lists the candidates without one" -- transpose.tl $K $S --sizes "M=512 N=300"
[ -s "$tmp/out" ] && { echo "FAIL: tune without a GPU printed on stdout:"; cat "$tmp/out"; fail=1; }

# 3. --dry-run against report and --check
"$T" tune transpose.tl --kernel tr --space "BM=0,32,48 BN=32,256" --sizes "M=512 N=300" --dry-run > "$tmp/dry" 2> "$tmp/dryerr"
st=$?
[ $st = 0 ] || { echo "FAIL: --dry-run exited $st:"; cat "$tmp/dryerr"; fail=1; }
{
  echo "tile2cu tune: transpose.tl, kernel tr, sm_90: 6 candidates, 2 fit, 4 skipped"
  n=0
  for bm in 0 32 48; do for bn in 32 256; do
    D="-DBM=$bm -DBN=$bn"
    if ! "$T" --check $D transpose.tl > /dev/null 2> "$tmp/check"; then
      echo "skipped   BM=$bm BN=$bn: $(grep -m1 'error: ' "$tmp/check")"
    elif [ $((512 % bm)) != 0 ]; then
      line=$(grep -n '^@assume' transpose.tl | cut -d: -f1)
      echo "skipped   BM=$bm BN=$bn: at --sizes: @assume condition 1 of kernel 'tr' (line $line) is false (M = 512, BM = $bm)"
    else
      n=$((n + 1))
      "$T" report $D transpose.tl > "$tmp/report" 2>/dev/null || echo "report failed for $D"
      thr=$(sed -n 's/^  threads: *\([0-9]*\) .*/\1/p' "$tmp/report")
      smem=$(sed -n 's/^  shared memory: *\([0-9]*\) bytes.*/\1/p' "$tmp/report")
      regs=$(sed -n 's/^  registers: *\([0-9]*\) per thread.*/\1/p' "$tmp/report")
      stack=$(sed -n 's/^  stack frame: *\([0-9]*\) bytes; spills: \([0-9]*\) bytes stored, \([0-9]*\) bytes loaded/\1 \2 \3/p' "$tmp/report")
      set -- $stack
      occ=$(sed -n 's/^  occupancy: *//p' "$tmp/report")
      echo "candidate $n: BM=$bm BN=$bn: $thr threads, $smem shared bytes, $regs registers, $1 bytes stack, spills $2/$3 bytes; occupancy $occ"
    fi
  done; done
} > "$tmp/want"
if diff -u "$tmp/want" "$tmp/dry"; then pass=$((pass + 1)); else echo "FAIL: --dry-run differs from report/--check (above)"; fail=1; fi
# without --sizes nothing is checked at a size: BM=48 fits
"$T" tune transpose.tl --kernel tr --space "BM=48" --dry-run > "$tmp/dry2" 2>&1
if grep -q "^candidate 1: BM=48:" "$tmp/dry2"; then pass=$((pass + 1)); else echo "FAIL: BM=48 without --sizes:"; cat "$tmp/dry2"; fail=1; fi

# 4. tuning files
sha=$(sha256sum transpose.tl | cut -d' ' -f1)
entry() { # SHA TARGET CLASS DEFINES [KERNEL]
  printf '  - source: "transpose.tl"\n    sha256: "%s"\n    target: "%s"\n    kernel: "%s"\n    size_class: "%s"\n    sizes: "%s"\n    defines: "%s"\n    median_us: 1.5\n' "$1" "$2" "${5:-tr}" "$3" "$3" "$4"
}
{ echo "entries:"; entry "$sha" sm_90 "M=512 N=512" "BM=64 BN=16"; entry "$sha" sm_80 "M=512 N=512" "BM=16 BN=16"
  entry 0000 sm_90 "M=512 N=512" "BM=8 BN=8"; } > "$tmp/t.yaml"
"$T" -DBM=64 -DBN=16 transpose.tl > "$tmp/want.cu" && "$T" --tuned "$tmp/t.yaml" transpose.tl > "$tmp/got.cu" &&
  cmp -s "$tmp/want.cu" "$tmp/got.cu" && pass=$((pass + 1)) || { echo "FAIL: --tuned is not -DBM=64 -DBN=16"; fail=1; }
"$T" -DBM=16 -DBN=16 --target sm_80 transpose.tl > "$tmp/want.cu" && "$T" --tuned "$tmp/t.yaml" --target sm_80 transpose.tl > "$tmp/got.cu" &&
  cmp -s "$tmp/want.cu" "$tmp/got.cu" && pass=$((pass + 1)) || { echo "FAIL: --tuned for sm_80"; fail=1; }
"$T" -DBM=64 -DBN=8 transpose.tl > "$tmp/want.cu" && "$T" --tuned "$tmp/t.yaml" -DBN=8 transpose.tl > "$tmp/got.cu" &&
  cmp -s "$tmp/want.cu" "$tmp/got.cu" && pass=$((pass + 1)) || { echo "FAIL: a -D after --tuned does not win"; fail=1; }
"$T" --target sm_89 transpose.tl > "$tmp/want.cu" && "$T" --tuned "$tmp/t.yaml" --target sm_89 transpose.tl > "$tmp/got.cu" 2> "$tmp/err" &&
  cmp -s "$tmp/want.cu" "$tmp/got.cu" &&
  [ "$(cat "$tmp/err")" = "tile2cu: note: $tmp/t.yaml has no entry for this source (sha256 $(echo "$sha" | cut -c1-12)...) on sm_89; the file's own constants are used" ] &&
  pass=$((pass + 1)) || { echo "FAIL: --tuned without an entry:"; cat "$tmp/err"; fail=1; }
{ echo "entries:"; entry "$sha" sm_90 "M=512 N=512" "BM=64 BN=16"; entry "$sha" sm_90 "M=4096 N=4096" "BM=128 BN=32"; } > "$tmp/two.yaml"
"$T" --tuned "$tmp/two.yaml" transpose.tl > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "entries of different constants for this source on sm_90 (size classes 'M=512 N=512', 'M=4096 N=4096'): pick one with --tuned-sizes" "$tmp/err" &&
  pass=$((pass + 1)) || { echo "FAIL: disagreeing entries:"; cat "$tmp/err"; fail=1; }
"$T" -DBM=128 -DBN=32 transpose.tl > "$tmp/want.cu" && "$T" --tuned "$tmp/two.yaml" --tuned-sizes "N=3000 M=4000" transpose.tl > "$tmp/got.cu" &&
  cmp -s "$tmp/want.cu" "$tmp/got.cu" && pass=$((pass + 1)) || { echo "FAIL: --tuned-sizes does not pick the class"; fail=1; }
# two kernels' entries: one class, constants that agree, then differ
sha2=$(sha256sum two.tl | cut -d' ' -f1)
{ echo "entries:"; entry "$sha2" sm_90 "N=1024" "BN=64" a; entry "$sha2" sm_90 "N=1024" "BN=64" b; } > "$tmp/ab.yaml"
"$T" -DBN=64 two.tl > "$tmp/want.cu" && "$T" --tuned "$tmp/ab.yaml" two.tl > "$tmp/got.cu" &&
  cmp -s "$tmp/want.cu" "$tmp/got.cu" && pass=$((pass + 1)) || { echo "FAIL: two kernels' entries that agree"; fail=1; }
{ echo "entries:"; entry "$sha2" sm_90 "N=1024" "BN=64" a; entry "$sha2" sm_90 "N=1024" "BN=256" b; } > "$tmp/ab.yaml"
"$T" --tuned "$tmp/ab.yaml" --tuned-sizes N=1000 two.tl > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "entries of different constants for this source on sm_90 (kernels 'a', 'b'): the constants apply to every kernel of the file: pick one with --tuned-kernel" "$tmp/err" &&
  pass=$((pass + 1)) || { echo "FAIL: two kernels' entries that differ:"; cat "$tmp/err"; fail=1; }
"$T" -DBN=256 two.tl > "$tmp/want.cu" && "$T" --tuned "$tmp/ab.yaml" --tuned-kernel b two.tl > "$tmp/got.cu" &&
  cmp -s "$tmp/want.cu" "$tmp/got.cu" && pass=$((pass + 1)) || { echo "FAIL: --tuned-kernel does not pick the kernel"; fail=1; }
"$T" --tuned-kernel a two.tl > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "^tile2cu: --tuned-kernel needs --tuned" "$tmp/err" && pass=$((pass + 1)) || { echo "FAIL: --tuned-kernel alone"; fail=1; }
printf 'entries: [1, 2\n' > "$tmp/bad.yaml"
"$T" --tuned "$tmp/bad.yaml" transpose.tl > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "^tile2cu: $tmp/bad.yaml: line [0-9]*: " "$tmp/err" && pass=$((pass + 1)) || { echo "FAIL: malformed tuning file:"; cat "$tmp/err"; fail=1; }
printf 'entries:\n  - source: "x"\n' > "$tmp/bad.yaml"
"$T" --tuned "$tmp/bad.yaml" transpose.tl > /dev/null 2> "$tmp/err"
[ $? = 2 ] && [ "$(cat "$tmp/err")" = "tile2cu: $tmp/bad.yaml: line 2: the entry has no 'sha256'" ] && pass=$((pass + 1)) ||
  { echo "FAIL: an entry without sha256:"; cat "$tmp/err"; fail=1; }
"$T" --tuned-sizes "M=1" transpose.tl > /dev/null 2> "$tmp/err"
[ $? = 2 ] && grep -q "^tile2cu: --tuned-sizes needs --tuned" "$tmp/err" && pass=$((pass + 1)) || { echo "FAIL: --tuned-sizes alone"; fail=1; }

[ $fail = 0 ] && echo "tests/tune: $pass checks passed"
exit $fail
