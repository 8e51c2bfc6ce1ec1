#!/bin/sh
# races.sh TILE2CU OUT: `tile2cu run` of racy kernels on the CPU backend must
# exit 1 and print the race report (one worker, so the blocks run in order).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
t2c=$1
out=$2
failed=0
expect_race() { # FILE KERNEL REPORT ARGS...
  file=$1 kernel=$2 want=$3
  shift 3
  got=$(cd "$out" && T2C_SIM_WORKERS=1 "$t2c" run "$root/tests/sim/$file" --kernel "$kernel" --backend sim "$@" 2>&1)
  st=$?
  case "$got" in
  *"$want"*) [ "$st" = 1 ] && return ;;
  esac
  echo "FAIL races.sh $file: exit $st, want 1 and \"$want\"; got:" >&2
  echo "$got" >&2
  failed=$((failed + 1))
}
rm -f "$out/race_y.npy" "$out/race_s.npy"
expect_race race_store.tl race_store \
  "tile2cu run: race: tensor 'Y' at index 0 in kernel 'race_store': block (0,0,0), thread 0 wrote it and block (0,0,0), thread 1 writes it, with no barrier in between" \
  Y=race_y.npy N=8
expect_race race_blocks.tl race_blocks \
  "tile2cu run: race: tensor 'S' at index 3 ([1, 1] of shape [2, 2]) in kernel 'race_blocks': block (0,0,0), thread 0 wrote it and block (1,0,0), thread 0 reads it, from two blocks of one launch" \
  S=race_s.npy
[ -e "$out/race_y.npy" ] || [ -e "$out/race_s.npy" ] && { echo "FAIL races.sh: a failed run wrote its outputs" >&2; failed=$((failed + 1)); }
echo "races: 2 tile2cu runs, $failed failed"
[ "$failed" = 0 ]
