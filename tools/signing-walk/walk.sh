#!/bin/bash
# The files a command's body crosses: every file of this repository with code that runs inside
# one builtin body (callgrind's --toggle-collect on the body's closure, functions with cost of
# their own, mapped to files by addr2line on the debug binary). Valgrind 3.19 cannot read
# Swift 6's DWARF 5, so the binary is copied without its debug sections for valgrind and the
# addresses are looked up in the original.
#
#   tools/signing-walk/walk.sh BIN ROOT_SYMBOL CODE   → one file per line on stdout
#
# ROOT_SYMBOL is the mangled name of the body's closure (`nm BIN | grep 'BuiltinsO7signing'`:
# the third closure of `Builtins.signing`, fU1_, is `sign.message`'s). Run it in a home where
# CODE works (KCS_HOME, KCS_VAULT_PASSPHRASE); what runs before the body (start-up, other
# statements) is not counted. Used for issue 27's "walk of sign message" figures.
set -euo pipefail
bin=$1; root=$2; code=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/nd" && strip --strip-debug "$work/nd"
valgrind --tool=callgrind --collect-atstart=no "--toggle-collect=$root" --callgrind-out-file="$work/cg" \
  "$work/nd" -e "$code" >/dev/null 2>"$work/vg" || { cat "$work/vg" >&2; exit 1; }
python3 "$here/selfcost.py" "$work/cg" | sort -u > "$work/fns"
nm "$work/nd" | awk 'NF == 3 {print $1, $3}' | sort -k2 > "$work/nm"
join -1 1 -2 2 -o 2.1 "$work/fns" "$work/nm" | sed 's/^/0x/' | addr2line -e "$bin" | sed 's/:.*//' \
  | grep "/Sources/" | grep -v /checkouts/ | sed 's|.*/Sources/||' | sort -u
