#!/bin/sh
# check_fuzz.sh: the README's reliability figures against their sources.
#   - "N fuzz executions": the sum of the libFuzzer lines (translate, gen,
#     npy) of the ledger tests/fuzz/campaigns.tsv, and "TARGET N" for each;
#   - "N differential runs" and "N programs compiled with nvcc": the sums of
#     its difftest and nvcc lines;
#   - "K past crashes": the files under tests/fuzz/crashes/ (each replayed by
#     make test's fuzz pass, which fails if one still crashes: so the open
#     crashes are 0 whenever make test passes).
# Numbers in the README are written with ',' between thousands.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ledger=tests/fuzz/campaigns.tsv
readme=README.md
sum() { awk -F'\t' -v t="$1" '$2 ~ "^(" t ")$" { s += $4 } END { printf "%d", s }' "$ledger"; }
fmt() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
fail=0
check() { # label, expected number, README pattern before the number
  want=$(fmt "$2")
  if ! grep -q "$want $3" "$readme"; then
    echo "check_fuzz: README.md should say '$want $3' ($1; from $ledger or tests/fuzz/crashes)" >&2
    fail=1
  fi
}
[ -f "$ledger" ] || { echo "check_fuzz: $ledger is missing" >&2; exit 1; }
check "libFuzzer executions" "$(sum 'translate|gen|npy')" "fuzz executions"
for t in translate gen npy; do
  want=$(fmt "$(sum $t)")
  grep -q "$t $want[,)]" "$readme" || { echo "check_fuzz: README.md should say '$t $want' (its executions in $ledger)" >&2; fail=1; }
done
check "differential runs" "$(sum difftest)" "differential runs"
check "nvcc compiles" "$(sum nvcc)" "programs compiled with nvcc"
crashes=$(find tests/fuzz/crashes -type f | wc -l)
check "past crashes" "$crashes" "past crashes"
[ $fail = 0 ] && echo "fuzz: README figures match $ledger and tests/fuzz/crashes ($(fmt "$(sum 'translate|gen|npy')") executions, $crashes past crashes)"
exit $fail
