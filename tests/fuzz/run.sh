#!/bin/sh
# tests/fuzz/run.sh smoke|campaign [SECONDS]
#
# Runs the libFuzzer targets built by `make fuzz-build` (into $B/fuzz, default
# build/fuzz). For each target NAME (translate, gen, npy):
#
#   1. every file of tests/fuzz/crashes/NAME/ (inputs that once crashed, kept
#      as regressions) is run once: any report fails;
#   2. the target fuzzes for its share of SECONDS, starting from the tracked
#      corpus tests/fuzz/corpus/NAME/ (and, for translate, every .tl of the
#      repository), in a scratch copy under $B/fuzz/work-NAME.
#
# smoke (make test): SECONDS defaults to 60; nothing in the repository changes.
# campaign (make fuzz): SECONDS defaults to 600; new crashes are written to
# tests/fuzz/crashes/NAME/, inputs that add coverage are merged into the tracked
# corpus, and one line per target is appended to tests/fuzz/campaigns.tsv
# (date, target, seconds, executions, crashes), the ledger the README's totals
# come from (tests/docs/check_fuzz.sh checks them).
# Exits nonzero when any target reports a crash, a leak, a timeout or an
# out-of-memory.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-smoke}
case $mode in
  smoke) secs=${2:-60} ;;
  campaign) secs=${2:-600} ;;
  *) echo "usage: tests/fuzz/run.sh smoke|campaign [SECONDS]" >&2; exit 2 ;;
esac
fz=${B:-$root/build}/fuzz
case $fz in /*) ;; *) fz=$root/$fz ;; esac

# shares of the time: the translator gets most of it
share() { # name -> seconds
  case $1 in
    translate) echo $((secs * 5 / 10)) ;;
    gen) echo $((secs * 3 / 10)) ;;
    npy) echo $((secs - secs * 5 / 10 - secs * 3 / 10)) ;;
  esac
}

# libFuzzer's options: 4 KiB inputs (16 KiB for the generator's choices), a
# unit over 10 s is a hang, over 2 GiB an out-of-memory
opts="-timeout=10 -rss_limit_mb=2048 -print_final_stats=1"
status=0
total=0
for name in translate gen npy; do
  bin=$fz/fuzz_$name
  [ -x "$bin" ] || { echo "fuzz: $bin is missing (make fuzz-build)" >&2; exit 2; }
  crashes=$root/tests/fuzz/crashes/$name
  corpus=$root/tests/fuzz/corpus/$name
  work=$fz/work-$name
  log=$fz/$name.log
  mkdir -p "$work" "$corpus" "$crashes"

  # 1. past crashes, one run each
  n=0
  for f in "$crashes"/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    if ! "$bin" $opts "$f" > "$log" 2>&1; then
      echo "fuzz: $name: $f crashes again:" >&2
      grep -E 'ERROR|runtime error|invariant|SUMMARY' "$log" | head -5 >&2
      status=1
    fi
  done

  # 2. fuzz from the corpus (plus the repository's .tl files for translate)
  seeds=""
  if [ "$name" = translate ]; then
    seeds=$fz/seeds-translate
    rm -rf "$seeds" && mkdir -p "$seeds"
    find "$root/tests" "$root/examples" -name '*.tl' -exec cp {} "$seeds/" \;
  fi
  max_len=4096
  [ "$name" = gen ] && max_len=16384
  t=$(share $name)
  if [ "$mode" = campaign ]; then
    art=$crashes/
  else
    art=$fz/artifacts-$name/
    mkdir -p "$art"
  fi
  set +e
  # shellcheck disable=SC2086
  "$bin" $opts -max_len=$max_len -max_total_time="$t" -artifact_prefix="$art" \
    "$work" "$corpus" $seeds > "$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  execs=${execs:-0}
  found=0
  [ $rc = 0 ] || found=1
  total=$((total + execs))
  if [ $rc != 0 ]; then
    echo "fuzz: $name: found a failure (exit $rc); the input is in $art:" >&2
    grep -E 'ERROR|runtime error|invariant|SUMMARY|Test unit written' "$log" | head -8 >&2
    status=1
  fi
  echo "fuzz: $name: $n past crashes replayed, ${t}s, $execs executions, $found new failures"
  if [ "$mode" = campaign ]; then
    # keep only what adds coverage in the tracked corpus
    "$bin" -merge=1 -max_len=$max_len "$corpus" "$work" > "$fz/$name.merge.log" 2>&1 || true
    printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%d)" "$name" "$t" "$execs" "$found" \
      >> "$root/tests/fuzz/campaigns.tsv"
  fi
done
echo "fuzz: $mode: $total executions in ${secs}s, $([ $status = 0 ] && echo 0 || echo some) failures"
exit $status
