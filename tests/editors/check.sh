#!/bin/sh
# The editor grammars highlight the whole language:
#   editors/tile2cu.tmLanguage.json (TextMate: VS Code, GitHub linguist)
#   editors/vim/syntax/tile2cu.vim
# Every keyword (translator/tokens.def), attribute (attrs.def), built-in
# function (builtins.def), element type (types.def) and built-in name
# (name_builtin() in check.c: ctx, inf, tile, tensor) must be matched as a
# whole by a rule that is not a comment or an error rule, in both. So must
# every @attribute, every call and every ctx field used in the example and
# golden kernels. No python or jq needed: TextMate match rules are one per
# line and their regexes run under grep -E; Vim's are translated to ERE. When
# vim is installed, it also highlights a buffer of the words and checks that
# each gets a highlight group.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tm=$root/editors/tile2cu.tmLanguage.json
vimsyn=$root/editors/vim/syntax/tile2cu.vim
tr=$root/translator
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# ---- the words: "kind text" lines
{
  sed -n '/keywords/,/punctuation/s/^X(TK_[A-Z_]*, "\([a-z][a-z]*\)").*/keyword \1/p' "$tr/tokens.def"
  sed -n 's/^X(A_[A-Z_]*, "\([a-z_]*\)".*/attribute @\1/p' "$tr/attrs.def"
  sed -n 's/^X(B_[A-Z_0-9]*, "\([a-z_0-9]*\)".*/builtin \1/p' "$tr/builtins.def"
  sed -n 's/^X(T_[A-Z_0-9]*, "\([a-z_0-9]*\)".*/type \1/p' "$tr/types.def"
  sed -n '/^static bool name_builtin/,/^}/p' "$tr/check.c" | grep -o 'strcmp(n, "[a-z]*")' | sed 's/.*"\(.*\)".*/name \1/'
} > "$tmp/defs"
for k in keyword attribute builtin type name; do
  grep -q "^$k " "$tmp/defs" || { echo "FAIL: no ${k}s read from translator/ (has a .def format changed?)"; fail=1; }
done
# Used in the kernels: attributes, calls (every call is a built-in or a cast), ctx fields.
for f in "$root"/examples/*.tl "$root"/tests/golden/*.tl "$root"/tests/gpu/*.tl; do
  [ -f "$f" ] && sed 's|//.*||; s/kernel  *[A-Za-z_][A-Za-z_0-9]*//g' "$f"
done > "$tmp/src"
{
  grep -oE '@[A-Za-z_][A-Za-z_0-9]*' "$tmp/src" | sed 's/^/used-attribute /'
  grep -oE '(^|[^@A-Za-z_0-9])[A-Za-z_][A-Za-z_0-9]*[ ]*\(' "$tmp/src" | sed 's/^[^A-Za-z_]//; s/[ (]*$//; s/^/used-call /'
  grep -oE '\bctx(\.[a-z]+)?' "$tmp/src" | sed 's/^/used-ctx /'
} | sort -u > "$tmp/used"
cat "$tmp/defs" "$tmp/used" > "$tmp/words"

# ---- TextMate: "scope<TAB>ERE" for each one-line rule with a name and a match
sed -n 's/^ *{ "name": "\([^"]*\)", "match": "\(.*\)" },*$/\1	\2/p' "$tm" | sed 's/\\\\/\\/g' > "$tmp/tm.rules"
[ -s "$tmp/tm.rules" ] || { echo "FAIL: no rules read from $tm"; fail=1; }
grep -q '"scopeName": "source.tl"' "$tm" || { echo "FAIL: $tm: scopeName is not source.tl"; fail=1; }
if command -v jq > /dev/null; then jq . "$tm" > /dev/null || { echo "FAIL: $tm is not valid JSON"; fail=1; }; fi

# ---- Vim: keywords as "group word", matches as "group<TAB>ERE"
awk '$1 == "syn" && $2 == "keyword" { for (i = 4; i <= NF; i++) if ($i !~ /=/ && $i != "skipwhite") print $3, $i }' "$vimsyn" > "$tmp/vim.kw"
grep -v ' contained' "$vimsyn" | sed -n 's/^syn match  *\([A-Za-z]*\)  *"\(.*\)".*/\1	\2/p' |
  sed 's/\\%(/(/g; s/\\(/(/g; s/\\)/)/g; s/\\|/|/g; s/\\=/?/g; s/\\+/+/g; s/\\[<>]/\\b/g;
       s/\\h/[A-Za-z_]/g; s/\\w/[A-Za-z0-9_]/g; s/\\d/[0-9]/g' > "$tmp/vim.rules"
grep -q '^autocmd .*\*\.tl .*tile2cu' "$root/editors/vim/ftdetect/tile2cu.vim" || { echo "FAIL: ftdetect does not map *.tl to tile2cu"; fail=1; }
for g in $(cut -d' ' -f1 "$tmp/vim.kw" | sort -u) $(cut -f1 "$tmp/vim.rules" | sort -u); do
  grep -q "^hi def link $g " "$vimsyn" || { echo "FAIL: vim group $g has no 'hi def link'"; fail=1; }
done

# covered RULES: the texts (one per line in $tmp/texts) that some rule, not a
# comment or an error rule, matches as a whole
covered() {
  while IFS="$(printf '\t')" read -r scope re; do
    case $scope in comment* | invalid* | tlComment | tlBad*) continue ;; esac
    grep -xE "$re" "$tmp/texts" 2> /dev/null
  done < "$1" | sort -u
}

cut -d' ' -f2 "$tmp/words" | sort -u > "$tmp/texts"
covered "$tmp/tm.rules" > "$tmp/tm.ok"
{ covered "$tmp/vim.rules"; awk '$1 != "tlTodo" { print $2 }' "$tmp/vim.kw"; } | sort -u > "$tmp/vim.ok"
n=$(wc -l < "$tmp/words")
while read -r kind text; do
  grep -qxF -e "$text" "$tmp/tm.ok" || { echo "FAIL: editors/tile2cu.tmLanguage.json does not highlight $kind '$text'"; fail=1; }
  grep -qxF -e "$text" "$tmp/vim.ok" || { echo "FAIL: editors/vim/syntax/tile2cu.vim does not highlight $kind '$text'"; fail=1; }
done < "$tmp/words"

# ---- Vim itself, when installed: each word alone on a line gets a highlight group.
if command -v vim > /dev/null; then
  cut -d' ' -f2 "$tmp/words" > "$tmp/words.tl"
  cat > "$tmp/check.vim" <<VIM
set nocompatible
syntax on
edit $tmp/words.tl
source $vimsyn
let bad = []
for l in range(1, line('$'))
  let g = synIDattr(synIDtrans(synID(l, 1, 1)), 'name')
  if g == '' || g == 'Error' | call add(bad, getline(l) . ' (' . g . ')') | endif
endfor
call writefile(bad, '$tmp/vim.bad')
qall!
VIM
  vim -Nu NONE -i NONE -n -es -S "$tmp/check.vim" < /dev/null > /dev/null 2>&1
  if [ ! -f "$tmp/vim.bad" ]; then echo "FAIL: vim did not run the syntax check"; fail=1
  elif [ -s "$tmp/vim.bad" ]; then sed 's/^/FAIL: vim does not highlight /' "$tmp/vim.bad"; fail=1; fi
fi
[ $fail = 0 ] && echo "editors: $n words highlighted by the TextMate grammar and the Vim syntax"
exit $fail
