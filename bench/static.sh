#!/bin/sh
# bench/static.sh: what ptxas and the PTX say about every example kernel, no GPU needed.
#
#   make bench-static                      (not part of make test)
#   sh bench/static.sh [FILE.tl ...]       default: examples/*.tl bench/*.tl
#
# For each .tl and each target (sm_80, sm_90, sm_90a; $BENCH_ARCHS overrides), the file is
# translated with `build/tile2cu --target sm_XX` and compiled with
# `nvcc -arch=sm_XX -Xptxas -v -I rt -c -keep` (sm_90a: compute_90a and sm_90a code); the kernel's row comes from ptxas's
# lines for its entry function and from the PTX nvcc kept (split at `.entry`).
#
# Columns:
#   regs             registers per thread (ptxas)
#   stack            stack frame bytes (ptxas)
#   spill st/ld      spill store / load bytes (ptxas)
#   shared           shared bytes from the generated kernel's header comment
#                    (`d`: dynamic shared memory, so ptxas's smem shows 0)
#   barriers / cross-warp reductions   barriers in the kernel's body (the header's count; of
#                    a kernel with a fast and a general body, the fast one's), and, for
#                    kernel, its row reductions whose rows span warps (one scratch buffer each)
#   smem             shared bytes ptxas reports (static allocations only)
#   mma              mma.sync instructions in the PTX
#   wgmma            wgmma.mma_async instructions in the PTX (sm_90a)
#   tma / mbarrier   cp.async.bulk.tensor copies (loads and stores), and mbarrier instructions (init, arrive,
#                    expect_tx, try_wait), in the PTX (sm_90a)
#   ldmatrix         ldmatrix instructions
#   cp.async         cp.async copies (commit/wait not counted) / of those 16 bytes wide
#   ldg16            16-byte global loads (ld.global*.v4 of 32-bit, .v2 of 64-bit)
#   lds16            16-byte shared loads (ld.shared*.v4 / .v2 of 64-bit)
#   stg16            16-byte global stores (st.global*.v4 / .v2 of 64-bit)
#   stg              all global stores (so stg16 = 0 with stg > 0 means scalar stores)
# Counts are static instruction counts in the PTX (unrolled loops count every copy).
# A file whose header comment says "for --target sm_90a only" (examples/gemm_bf16_256.tl)
# is built for sm_90a alone.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TILE2CU=${TILE2CU:-$ROOT/build/tile2cu}
NVCC=${NVCC:-nvcc}
ARCHS=${BENCH_ARCHS:-"sm_80 sm_90 sm_90a"}
WORK=${BENCH_WORK:-$ROOT/build/bench-static}

cd "$ROOT" || exit 2
[ -x "$TILE2CU" ] || { echo "bench-static: $TILE2CU not found (run make)" >&2; exit 2; }
command -v "$NVCC" >/dev/null 2>&1 || { echo "bench-static: $NVCC not found" >&2; exit 2; }

if [ $# -gt 0 ]; then FILES="$*"; else FILES="$(ls examples/*.tl) $(ls bench/*.tl 2>/dev/null)"; fi
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2

# One file for one target: translate, compile, write $dir/rows (one line per kernel).
one() {
  f=$1 arch=$2
  b=$(basename "$f" .tl)
  dir=$WORK/$b.$arch
  mkdir -p "$dir/keep"
  if ! "$TILE2CU" --target "$arch" "$f" -o "$dir/$b.cu" 2>"$dir/translate.log"; then
    echo "$f - $arch TRANSLATE-FAILED" > "$dir/rows"; return
  fi
  archflag="-arch=$arch"
  case $arch in *a) archflag="-gencode=arch=compute_${arch#sm_},code=$arch" ;; esac
  if ! "$NVCC" $archflag -Xptxas -v -I rt -c "$dir/$b.cu" -o "$dir/$b.o" \
       -keep -keep-dir "$dir/keep" >"$dir/nvcc.log" 2>&1; then
    echo "$f - $arch NVCC-FAILED" > "$dir/rows"; return
  fi
  # the generated header comments: "// kernel NAME (...)" then "//   shared memory: N bytes[, dynamic]"
  # and "barriers: B", and one scratch buffer per row reduction across warps ("partials of ...")
  awk '/^\/\/ kernel [A-Za-z_0-9]+ \(/ { k = $3; red[k] = 0 }
       /^\/\/   t2c_red[0-9]+: shared, .*partials of/ { red[k]++ }
       /^\/\/   shared memory: [0-9]+ bytes/ { d = ($0 ~ /dynamic/) ? "d" : ""; b = $0; sub(/.*barriers: /, "", b); sub(/ .*/, "", b)
                                          print "S", k, $4 d, b, red[k] }' \
    "$dir/$b.cu" > "$dir/facts"
  awk '/Compiling entry function/ { k = $0; sub(/.*function \047/, "", k); sub(/\047.*/, "", k); print "E", k }
       /Function properties for/ { k = $NF }
       /bytes stack frame/ { print "F", k, $1, $5, $9 }
       /Used [0-9]+ registers/ { r = $0; sub(/.*Used /, "", r); sub(/ .*/, "", r)
                                 s = 0; if ($0 ~ /bytes smem/) { s = $0; sub(/ bytes smem.*/, "", s); sub(/.* /, "", s) }
                                 print "R", k, r, s }' \
    "$dir/nvcc.log" >> "$dir/facts"
  ptx=$(ls "$dir"/keep/*.ptx 2>/dev/null | head -1)
  [ -n "$ptx" ] && awk '
       /\.entry [A-Za-z_0-9]+/ { k = $0; sub(/.*\.entry /, "", k); sub(/[( ].*/, "", k) }
       k == "" { next }
       /^[ \t]*(@%p[0-9]+ )?mma\.sync/ { mma[k]++ }
       /^[ \t]*(@%p[0-9]+ )?wgmma\.mma_async/ { wg[k]++ }
       /^[ \t]*(@!?%p[0-9]+ )?cp\.async\.bulk\.tensor/ { tma[k]++ }
       /^[ \t]*(@!?%p[0-9]+ )?mbarrier\./ { mb[k]++ }
       /^[ \t]*(@%p[0-9]+ )?ldmatrix/ { ldm[k]++ }
       /^[ \t]*(@!?%p[0-9]+ )?cp\.async\.c[ag]\./ { cpa[k]++; if ($0 ~ /\], 16[,;]/) cp16[k]++ }
       /^[ \t]*(@!?%p[0-9]+ )?ld\.global[a-z0-9.:]*\.(v4\.[bfsu]32|v2\.[bfsu]64)/ { ldg[k]++ }
       /^[ \t]*(@!?%p[0-9]+ )?ld\.shared[a-z0-9.:]*\.(v4\.[bfsu]32|v2\.[bfsu]64)/ { lds[k]++ }
       /^[ \t]*(@!?%p[0-9]+ )?st\.global[a-z0-9.:]*\.(v4\.[bfsu]32|v2\.[bfsu]64)/ { stg16[k]++ }
       /^[ \t]*(@!?%p[0-9]+ )?st\.global/ { stg[k]++ }
       /\.entry/ { seen[k] = 1 }
       END { for (k in seen) print "P", k, mma[k]+0, wg[k]+0, ldm[k]+0, cpa[k]+0, cp16[k]+0, ldg[k]+0, lds[k]+0, stg16[k]+0, stg[k]+0, tma[k]+0, mb[k]+0 }' \
    "$ptx" >> "$dir/facts"
  awk -v f="$f" -v arch="$arch" '
       $1 == "E" { n++; order[n] = $2 }
       $1 == "S" { sh[$2] = $3; bar[$2] = $4 "/" $5 }
       $1 == "F" { st[$2] = $3; sps[$2] = $4; spl[$2] = $5 }
       $1 == "R" { rg[$2] = $3; sm[$2] = $4 }
       $1 == "P" { p[$2] = $3 " " $4 " " $5 " " $6 " " $7 " " $8 " " $9 " " $10 " " $11 " " $12 " " $13 }
       END { for (i = 1; i <= n; i++) { k = order[i]
               print f, k, arch, rg[k], st[k], sps[k], spl[k], (k in sh) ? sh[k] : "?", (k in bar) ? bar[k] : "?", sm[k], (k in p) ? p[k] : "? ? ? ? ? ? ? ? ? ? ?" } }' \
    "$dir/facts" > "$dir/rows"
}

# the targets of file $1 among $ARCHS
archs_of() {
  if grep -q 'for --target sm_90a only' "$1"; then
    for a in $ARCHS; do [ "$a" = sm_90a ] && echo "$a"; done
  else echo "$ARCHS"; fi
}

for f in $FILES; do
  for a in $(archs_of "$f"); do one "$f" "$a" & done
  wait
done

yn() { if [ "$1" = 0 ]; then printf 'no'; elif [ "$1" = "?" ]; then printf '?'; else printf 'yes %s' "$1"; fi; }

echo "| example | kernel | target | regs | stack | spill st/ld | shared | barriers / cross-warp reductions | smem | mma.sync | wgmma | ldmatrix | cp.async (16B) | tma / mbarrier | ld.global 16B | ld.shared 16B | st.global 16B / all |"
echo "|---|---|---|--:|--:|--:|--:|--:|--:|---|---|---|---|---|---|---|---|"
status=0
bad=""
for f in $FILES; do
  b=$(basename "$f" .tl)
  for a in $(archs_of "$f"); do
    while read -r file k arch rg st sps spl sh bars sm mma wg ldm cpa cp16 ldg lds stg16 stg tma mb; do
      if [ "$k" = "-" ]; then
        echo "| $file | - | $arch | $rg | | | | | | | | | | | | | |"
        status=1; continue
      fi
      if [ "$st" != 0 ] || [ "$sps" != 0 ] || [ "$spl" != 0 ]; then bad="$bad $file:$k:$arch"; fi
      if [ "$cpa" = 0 ]; then cps=no; else cps="yes $cpa ($cp16)"; fi
      echo "| $file | $k | $arch | $rg | $st | $sps/$spl | $sh | $bars | $sm | $(yn "$mma") | $(yn "$wg") | $(yn "$ldm") | $cps | $tma / $mb | $(yn "$ldg") | $(yn "$lds") | $stg16 / $stg |"
    done < "$WORK/$b.$a/rows"
  done
done
echo
echo "tile2cu $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' (+ uncommitted changes)'), $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/nvcc \1/p'), $(date -u +%Y-%m-%d)"
if [ -n "$bad" ]; then echo "stack frame or spills:$bad"; else echo "every kernel: 0 bytes stack frame, 0 bytes spilled"; fi
[ $status = 0 ] || echo "some files failed: logs under $WORK" >&2
exit $status
