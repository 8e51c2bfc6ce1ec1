#!/bin/sh
# The warning goldens and docs/diagnostics.md:
#  1. tests/golden/warnings/X.tl: `tile2cu --check` exits 0, writes nothing on
#     stdout, and its stderr equals X.err (the error goldens are
#     tests/golden/run.sh's);
#  2. docs/diagnostics.md equals the output of tools/gen_diagnostics.sh, so the
#     page cannot drift from the goldens (`make docs` regenerates it).
#   sh tests/docs/check_diagnostics.sh --update   rewrites the warnings' .err
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tile2cu=${TILE2CU:-$root/build/tile2cu}
update=0
[ "${1:-}" = "--update" ] && update=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
cd "$root/tests/golden"
for tl in warnings/*.tl; do
  n=$((n + 1)); name=${tl%.tl}
  # shellcheck disable=SC2046
  "$tile2cu" --check $(sed -n '1s|^// args: *||p' "$tl") "$tl" > "$tmp/out" 2> "$tmp/err"
  st=$?
  if [ $st != 0 ]; then echo "FAIL $name: exit $st, expected 0"; cat "$tmp/err"; fail=$((fail + 1)); continue; fi
  [ -s "$tmp/out" ] && { echo "FAIL $name: wrote to stdout"; fail=$((fail + 1)); }
  grep -q ': warning: ' "$tmp/err" || { echo "FAIL $name: no warning"; fail=$((fail + 1)); }
  if [ $update = 1 ]; then cp "$tmp/err" "$name.err"; continue; fi
  if ! diff -u "$name.err" "$tmp/err" > "$tmp/diff" 2>&1; then
    echo "FAIL $name"; head -40 "$tmp/diff"; fail=$((fail + 1))
  fi
done
[ $update = 1 ] && { echo "warnings: updated $n files"; exit 0; }
sh "$root/tools/gen_diagnostics.sh" > "$tmp/diagnostics.md" || fail=$((fail + 1))
if ! diff -u "$root/docs/diagnostics.md" "$tmp/diagnostics.md" > "$tmp/diff" 2>&1; then
  echo "FAIL docs/diagnostics.md is not what tools/gen_diagnostics.sh writes (make docs):"
  head -40 "$tmp/diff"; fail=$((fail + 1))
fi
echo "diagnostics: $n warning goldens, docs/diagnostics.md up to date; $fail failed"
[ $fail = 0 ]
