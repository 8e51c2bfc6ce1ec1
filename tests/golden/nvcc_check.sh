#!/bin/sh
# Compiles every golden .cu with nvcc -arch=sm_90 -Xptxas -v. Fails when a
# kernel with register tiles has a stack frame or spills (the dynamic-index trap),
# or when anything fails to compile.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-sm_90}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ls "$here"/*.cu > "$tmp/list"
fail=0
one() {
  cu=$1; name=$(basename "$cu" .cu)
  if ! $NVCC -arch="$ARCH" -Xptxas -v -I"$root/rt" -c "$cu" -o "$tmp/$name.o" > "$tmp/$name.log" 2>&1; then
    echo "FAIL $name: nvcc"; cat "$tmp/$name.log"; return 1
  fi
  # kernels with register tiles carry "registers," in their summary comment
  if grep -q '^//   .*: registers, ' "$cu"; then
    if grep -E '[1-9][0-9]* bytes (stack frame|spill stores|spill loads)' "$tmp/$name.log" > /dev/null; then
      echo "FAIL $name: register tiles spilled or demoted to local memory:"; grep -E 'stack frame|Compiling' "$tmp/$name.log"; return 1
    fi
  fi
  return 0
}
export -f one 2>/dev/null || true
n=0
for cu in $(cat "$tmp/list"); do
  n=$((n + 1))
  one "$cu" || fail=$((fail + 1))
done
echo "nvcc-check: $n files, $fail failed"
[ $fail = 0 ]
