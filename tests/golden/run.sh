#!/bin/sh
# Golden tests: X.tl -> X.cu (translation) and errors/X.tl -> errors/X.err
# (diagnostics, exit status 1). A first line `// args: ...` adds options.
#   sh tests/golden/run.sh            compare
#   sh tests/golden/run.sh --update   rewrite the expected files
set -u
here=$(cd "$(dirname "$0")" && pwd)
tile2cu=${TILE2CU:-$here/../../build/tile2cu}
update=0
[ "${1:-}" = "--update" ] && update=1
fail=0 n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

args_of() { sed -n '1s|^// args: *||p' "$1"; }

check() { # expected actual name
  if [ $update = 1 ]; then cp "$2" "$1"; return; fi
  if [ ! -f "$1" ]; then echo "FAIL $3: no expected file $1 (make golden-update)"; fail=$((fail + 1)); return; fi
  if ! diff -u "$1" "$2" > "$tmp/diff"; then
    echo "FAIL $3"; head -40 "$tmp/diff"; fail=$((fail + 1))
  fi
}

cd "$here"
for tl in *.tl; do
  [ -f "$tl" ] || continue
  n=$((n + 1)); name=${tl%.tl}
  # shellcheck disable=SC2046
  "$tile2cu" $(args_of "$tl") "$tl" > "$tmp/out.cu" 2> "$tmp/err"
  st=$?
  if [ $st != 0 ]; then echo "FAIL $name: exit $st"; cat "$tmp/err"; fail=$((fail + 1)); continue; fi
  check "$name.cu" "$tmp/out.cu" "$name"
  # determinism: a second run gives the same bytes
  "$tile2cu" $(args_of "$tl") "$tl" 2>/dev/null | cmp -s - "$tmp/out.cu" || { echo "FAIL $name: output differs between runs"; fail=$((fail + 1)); }
done
for tl in errors/*.tl; do
  [ -f "$tl" ] || continue
  n=$((n + 1)); name=${tl%.tl}
  "$tile2cu" --check $(args_of "$tl") "$tl" > "$tmp/out" 2> "$tmp/err"
  st=$?
  if [ $st != 1 ]; then echo "FAIL $name: exit $st, expected 1"; cat "$tmp/err"; fail=$((fail + 1)); continue; fi
  if [ -s "$tmp/out" ]; then echo "FAIL $name: wrote to stdout"; fail=$((fail + 1)); fi
  check "$name.err" "$tmp/err" "$name"
done
[ $update = 1 ] && { echo "golden: updated $n files"; exit 0; }
echo "golden: $n tests, $fail failed"
[ $fail = 0 ]
