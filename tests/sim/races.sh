#!/bin/sh
# races.sh TILE2CU OUT: `tile2cu run` of racy kernels on the CPU backend must
# exit 1 and print the race report (one worker, so the blocks run in order);
# so must kernels that divide an integer by zero, overflow a division or shift by
# a count outside the type's width, or loop with a step that is not positive. A bool
# input's bytes other than 0 and 1 read as true.
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
rm -f "$out/race_y.npy" "$out/race_s.npy" "$out/div_o.npy"
expect_race race_store.tl race_store \
  "tile2cu run: race: tensor 'Y' at index 0 in kernel 'race_store': block (0,0,0), thread 0 wrote it and block (0,0,0), thread 1 writes it, with no barrier in between" \
  Y=race_y.npy N=8
expect_race race_blocks.tl race_blocks \
  "tile2cu run: race: tensor 'S' at index 3 ([1, 1] of shape [2, 2]) in kernel 'race_blocks': block (0,0,0), thread 0 wrote it and block (1,0,0), thread 0 reads it, from two blocks of one launch" \
  S=race_s.npy
expect_race div_zero.tl div_zero \
  "tile2cu run: integer division by zero (1 / 0) in kernel 'div_zero', block (0,0,0), thread " \
  O=div_o.npy N=5
expect_race div_zero.tl div_overflow \
  "tile2cu run: integer division overflow (-2147483648 / -1) in kernel 'div_overflow', block (0,0,0), thread " \
  O=div_o.npy N=5 b=-1
expect_race div_zero.tl shift_count \
  "tile2cu run: shift count 32 is outside 0 .. 31 for a 32-bit integer in kernel 'shift_count', block (0,0,0), thread " \
  O=div_o.npy N=5 s=32
expect_race div_zero.tl step_zero \
  "tile2cu run: range() step 0 is not positive (the loop would never end) in kernel 'step_zero', block (0,0,0), thread " \
  O=div_o.npy N=5 s=0
# a bool input whose bytes are 2, 1, 0, 255: read as true, true, false, true
h="{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }"
{ printf '\223NUMPY\001\000\166\000%s' "$h"; printf "%$((117 - ${#h}))s\n" ''; printf '\002\001\000\377'; } > "$out/bool_b.npy"
rm -f "$out/bool_o.npy"
(cd "$out" && "$t2c" run "$root/tests/sim/bool_bytes.tl" --kernel bb --backend sim -w B=bool_b.npy O=bool_o.npy > /dev/null 2>&1)
got=$(tail -c 16 "$out/bool_o.npy" 2>/dev/null | od -An -td4 -v | tr -s ' ' | sed 's/^ //')
[ "$got" = "10 10 1 10" ] || { echo "FAIL races.sh bool_bytes.tl: O = '$got', want '10 10 1 10'" >&2; failed=$((failed + 1)); }
[ -e "$out/race_y.npy" ] || [ -e "$out/race_s.npy" ] || [ -e "$out/div_o.npy" ] &&
  { echo "FAIL races.sh: a failed run wrote its outputs" >&2; failed=$((failed + 1)); }
echo "races: 7 tile2cu runs, $failed failed"
[ "$failed" = 0 ]
