#!/bin/sh
# tests/fuzz/difftest_campaign.sh [A:B [RUNS]]
# A differential campaign: the programs of seeds A..B-1 (default: 200 seeds
# that no earlier campaign of the ledger used), each run RUNS times
# (default 3) on the CPU backend at ragged sizes against tlgen's evaluation,
# then the same programs compiled with nvcc. Appends one line per part to the
# ledger tests/fuzz/campaigns.tsv (date, "difftest" or "nvcc", seconds,
# runs or programs compiled, failures), from which the README's totals come.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ledger=tests/fuzz/campaigns.tsv
if [ $# -ge 1 ]; then
  seeds=$1
else
  n=$( [ -f $ledger ] && wc -l < $ledger || echo 0)
  a=$((100000 + 1000 * n))
  seeds=$a:$((a + 200))
fi
runs=${2:-3}
b=${B:-build}
make -s "$b/tile2cu" "$b/difftest"
log=$b/difftest-campaign.log
nvlog=$b/difftest-campaign-nvcc.log
start=$(date +%s)
set +e
"$b/difftest" --tile2cu "$b/tile2cu" --seeds "$seeds" --runs-per-program "$runs" -j 2 > "$log" 2>&1
rc=$?
mid=$(date +%s)
"$b/difftest" --nvcc --tile2cu "$b/tile2cu" --seeds "$seeds" > "$nvlog" 2>&1
nrc=$?
end=$(date +%s)
set -e
# "difftest: P programs, R runs, X rejected by tile2cu, F failed (T s)"
line=$(grep '^difftest: [0-9]* programs' "$log" | tail -1)
nline=$(grep '^difftest: [0-9]* programs' "$nvlog" | tail -1)
echo "${line:-difftest: no summary, see $log}"
echo "${nline:-difftest --nvcc: no summary, see $nvlog}"
[ -n "$line" ] && [ -n "$nline" ] || exit 1
r=$(echo "$line" | sed 's/^difftest: [0-9]* programs, \([0-9]*\) runs.*/\1/')
f=$(echo "$line" | sed 's/.* \([0-9]*\) failed.*/\1/')
np=$(echo "$nline" | sed 's/^difftest: \([0-9]*\) programs.*/\1/')
nf=$(echo "$nline" | sed 's/.* \([0-9]*\) failed.*/\1/')
d=$(date -u +%Y-%m-%d)
printf '%s\tdifftest\t%s\t%s\t%s\n' "$d" $((mid - start)) "$r" "$f" >> $ledger
printf '%s\tnvcc\t%s\t%s\t%s\n' "$d" $((end - mid)) "$np" "$nf" >> $ledger
[ "$rc" = 0 ] && [ "$nrc" = 0 ]
