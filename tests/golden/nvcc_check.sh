#!/bin/sh
# Compiles every golden .cu with nvcc -arch=sm_90 -Xptxas -v (two at a time); one
# translated for sm_90a (its first line says so) with -gencode arch=compute_90a,code=sm_90a.
# Fails when anything does not compile or warns, when ptxas reports a performance loss
# (a serialised wgmma), or when a kernel with register tiles has a stack frame or spills
# (the dynamic-index trap).
set -u
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-sm_90}

if [ "${1:-}" = "--one" ]; then
  cu=$2 tmp=$3
  name=$(basename "$cu" .cu)
  archflag="-arch=$ARCH"
  if head -1 "$cu" | grep -q ' for sm_90a\. Do not edit\.$'; then archflag="-gencode=arch=compute_90a,code=sm_90a"; fi
  # a file with host code (a --host launcher, the tensor maps' helpers, a standalone
  # file's runtime) is compiled whole; one of kernels alone only for the device
  # (-cubin: the same ptxas report, without a host compile of nvcc's launch stubs)
  out="-c -o $tmp/$name.o"
  if ! grep -q -E '<<<|cuTensorMapEncodeTiled|__host__|int main' "$cu"; then out="-cubin -o $tmp/$name.cubin"; fi
  # shellcheck disable=SC2086
  if ! $NVCC $archflag -Xptxas -v -I"$here/../../rt" $out "$cu" > "$tmp/$name.log" 2>&1; then
    echo "FAIL $name: nvcc"; cat "$tmp/$name.log"; exit 1
  fi
  # generated code compiles without warnings
  if grep -q 'warning' "$tmp/$name.log"; then
    echo "FAIL $name: nvcc warnings:"; grep -A2 'warning' "$tmp/$name.log"; exit 1
  fi
  # ptxas's "Potential Performance Loss" notes (C7510..C7520): a wgmma serialised
  # because other code touches its accumulators while it is in flight, and the like
  if grep -q 'Performance Loss' "$tmp/$name.log"; then
    echo "FAIL $name: ptxas:"; grep 'Performance Loss' "$tmp/$name.log"; exit 1
  fi
  # kernels with register tiles say "registers," in their summary comment. sinf and
  # cosf keep a small local array for their slow-path argument reduction (a stack
  # frame of about 32 bytes and no spills, with or without tiles): in a file that
  # calls them only spills count.
  what='stack frame|spill stores|spill loads'
  if grep -q 't2c::\(sin\|cos\)(' "$cu"; then what='spill stores|spill loads'; fi
  if grep -q '^//   .*: registers, ' "$cu" &&
     grep -E "[1-9][0-9]* bytes ($what)" "$tmp/$name.log" > /dev/null; then
    echo "FAIL $name: register tiles spilled or were demoted to local memory:"
    grep -E 'Compiling|stack frame' "$tmp/$name.log"; exit 1
  fi
  exit 0
fi

# --part I/N: the files whose place in name order is I modulo N (1 <= I <= N): make test
# compiles one third of the goldens, make test-wide the other two (about 3.5 minutes in all
# on 2 cores)
part=1 parts=1
if [ "${1:-}" = "--part" ]; then
  part=${2%/*} parts=${2#*/}
  case "$part/$parts" in
    *[!0-9/]* | /* | */ ) echo "nvcc_check.sh: --part I/N, 1 <= I <= N: not '$2'" >&2; exit 2 ;;
  esac
  if [ "$part" -lt 1 ] || [ "$part" -gt "$parts" ]; then
    echo "nvcc_check.sh: --part I/N, 1 <= I <= N: not '$2'" >&2; exit 2
  fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ls "$here"/*.cu | LC_ALL=C sort | awk -v i="$part" -v n="$parts" '(NR - 1) % n == i - 1' > "$tmp/files"
n=$(wc -l < "$tmp/files")
of=""
[ "$parts" = 1 ] || of=" (part $part of $parts, in name order)"
if xargs -P 2 -I{} sh "$here/nvcc_check.sh" --one {} "$tmp" < "$tmp/files"; then
  echo "nvcc-check: $n files$of compiled for $ARCH (those translated for sm_90a with -gencode arch=compute_90a,code=sm_90a), no stack frame or spills in register-tile kernels"
else
  echo "nvcc-check: failures above"; exit 1
fi
