#!/bin/sh
# docs/cli.md against the help texts, both ways: every option that
# `tile2cu --help` or `tile2cu VERB --help` lists has a row in that verb's
# option table in docs/cli.md, and every row there is an option of that verb.
# Also: every environment variable the sources read (getenv) has a row in the
# environment table, and every row names one they read. man/tile2cu.1
# mentions every option and variable, and renders without groff warnings.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tile2cu=${TILE2CU:-$root/build/tile2cu}
doc=$root/docs/cli.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Options of a help text: the first word of each indented line starting with '-'.
help_opts() { "$tile2cu" "$@" --help | sed -n 's/^  \(-[-A-Za-z]*\).*/\1/p' | sort -u; }
help_opts > "$tmp/help.translate"
for v in run compile report tune; do help_opts "$v" > "$tmp/help.$v"; done

# Options of cli.md: the first word of each table row "| `-...", per section;
# a "## " heading naming `tile2cu run` (compile, report, tune) starts that verb's
# section, "## Translating" the translator's, any other heading none.
awk -v dir="$tmp" '
  /^## / { verb = "";
           if ($0 ~ /`tile2cu run/) verb = "run"; else if ($0 ~ /`tile2cu compile/) verb = "compile";
           else if ($0 ~ /`tile2cu report/) verb = "report"; else if ($0 ~ /`tile2cu tune/) verb = "tune";
           else if ($0 ~ /^## Translating/) verb = "translate" }
  /^\| `-/ { s = $0; sub(/^\| `/, "", s); sub(/[ `=].*/, "", s);
             if (verb == "") { print "docs/cli.md: option " s " is outside a verb section" > "/dev/stderr"; bad = 1 }
             else print s > (dir "/doc." verb) }
  END { exit bad }' "$doc" || fail=1
for v in translate run compile report tune; do
  touch "$tmp/doc.$v"
  sort -u "$tmp/doc.$v" -o "$tmp/doc.$v"
  for o in $(comm -23 "$tmp/help.$v" "$tmp/doc.$v"); do
    echo "FAIL: '$o' is in the $v help but not in docs/cli.md's $v table"; fail=1
  done
  for o in $(comm -13 "$tmp/help.$v" "$tmp/doc.$v"); do
    echo "FAIL: docs/cli.md documents '$o' for $v, but the $v help does not list it"; fail=1
  done
done

# Environment variables.
grep -ho 'getenv("[A-Z_0-9]*")' "$root"/translator/*.c "$root"/nvrtc_driver/*.c "$root"/rt/sim/*.c \
  "$root"/rt/sim/*.cpp | sed 's/getenv("\(.*\)")/\1/' | sort -u > "$tmp/env.src"
awk '/^## Environment/ { on = 1; next } /^## / { on = 0 }
     on && /^\| `/ { s = $2; gsub(/`/, "", s); n = split(s, a, ","); for (i = 1; i <= n; i++) { gsub(/ /, "", a[i]); print a[i] } }' \
  FS='|' "$doc" | sort -u > "$tmp/env.doc"
for e in $(comm -23 "$tmp/env.src" "$tmp/env.doc"); do echo "FAIL: the sources read \$$e, but docs/cli.md's environment table lacks it"; fail=1; done
for e in $(comm -13 "$tmp/env.src" "$tmp/env.doc"); do echo "FAIL: docs/cli.md documents \$$e, which no source reads"; fail=1; done

# "The first argument picks the verb": a verb after an option (tile2cu -w run FILE) or
# after the file says so, exit 2 (it said "more than one input file").
verb_later() { # VERB ARGS...: tile2cu ARGS names VERB as out of place
  v=$1
  shift
  (cd "$tmp" && "$tile2cu" "$@") > "$tmp/out" 2> "$tmp/err"
  st=$?
  if [ $st != 2 ] || ! grep -qF "tile2cu: '$v' is a verb: it must be the first argument, before the options (tile2cu $v FILE.tl ...)" "$tmp/err"; then
    echo "FAIL: tile2cu $*: exit $st (want 2), stderr:"; cat "$tmp/err"; fail=1
  fi
}
verb_later run -w run x.tl --kernel k
verb_later tune x.tl tune

# The man page: every option and environment variable, the version, and a clean render.
man=$root/man/tile2cu.1
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man" > "$tmp/man.txt"
for o in $(cat "$tmp"/help.* | sort -u) $(cat "$tmp/env.src"); do
  case $o in XDG_CACHE_HOME | HOME) continue ;; esac
  grep -qF -e "$o" "$tmp/man.txt" || { echo "FAIL: man/tile2cu.1 does not mention $o"; fail=1; }
done
version=$("$tile2cu" --version | sed 's/^tile2cu //')
grep -q "^.TH TILE2CU 1 .*\"tile2cu $version\"" "$man" || { echo "FAIL: man/tile2cu.1's .TH does not say tile2cu $version"; fail=1; }
if command -v groff > /dev/null; then
  groff -man -Tutf8 -ww -z "$man" > "$tmp/groff" 2>&1 && [ ! -s "$tmp/groff" ] ||
    { echo "FAIL: groff warns about man/tile2cu.1:"; cat "$tmp/groff"; fail=1; }
fi

n=$(cat "$tmp"/help.* | wc -l)
[ $fail = 0 ] && echo "docs/cli.md, man/tile2cu.1: $n options and $(wc -l < "$tmp/env.src") environment variables match the help texts and sources"
exit $fail
