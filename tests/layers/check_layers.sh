#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: check_layers.sh SOURCE_DIR [OBJECT_DIR]
# The layers of docs/architecture.md stay one-way:
#  1. includes: a file of src/<layer>/ includes the public headers (<kbpf/...>), its own
#     layer's private headers and those of layers BELOW it, never above; tools/, hosts/
#     and examples/ include no private header of src/ at all (tests/ and bench/ may:
#     they test and measure the internals);
#  2. calls (with OBJECT_DIR, the library's object files as src/<layer>/<file>.o): a
#     function of one layer calls only functions defined in its own layer or below,
#     even through the public API.
# The order is read from docs/architecture.md's "layers, bottom to top:" line, so the
# document and the code cannot drift apart. Today's exceptions are listed in allowed.txt
# with the reason; an entry that is no longer needed is an error too, so the list only
# shrinks.
set -eu
src=$1 objdir=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
allowed=$here/allowed.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

order=$(sed -n 's/^layers, bottom to top: *//p' "$src/docs/architecture.md" | head -n1)
[ -n "$order" ] || { echo "docs/architecture.md has no 'layers, bottom to top:' line"; exit 1; }
rank() { # rank of a layer name, empty if it is none
	i=0
	for l in $order; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo "$i"; return; }
	done
}
for d in "$src"/src/*/; do
	d=$(basename "$d")
	[ -n "$(rank "$d")" ] || { echo "src/$d is not in docs/architecture.md's layer order ($order)"; exit 1; }
done

# 1. includes: "include FILE HEADER" for each upward or outside include
cd "$src"
find src tools hosts examples -name '*.[ch]' | sort | xargs grep -Ho '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_0-9]*/[a-z_0-9]*\.h"' |
	sed 's/:.*"\(.*\)"$/ \1/' | awk -v order="$order" '
	BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) r[o[i]] = i }
	{
		f = $1; h = $2; split(h, hp, "/")
		if (!(hp[1] in r)) next   # not a layer header (a host'"'"'s own sub-folder)
		if (f ~ /^src\//) { split(f, fp, "/"); if (r[hp[1]] <= r[fp[2]]) next }
		print "include " f " " h
	}' >"$tmp/found"

# 2. calls between the layers' object files
if [ -n "$objdir" ]; then
	[ -d "$objdir/src" ] || { echo "no object files under $objdir/src"; exit 1; }
	# "path/src/exec/prog.c.o:                 U kbpf_prog_verify", "...: 0000 T kbpf_x"
	# only the objects of sources that exist (a moved file leaves its old object behind)
	objs=
	for o in "$objdir"/src/*/*.o; do
		rel=${o#"$objdir"/}
		[ -f "$src/${rel%.o}" ] && objs="$objs $o"
	done
	# shellcheck disable=SC2086 # build paths have no spaces
	nm -A $objs | awk -v order="$order" '
	BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) r[o[i]] = i }
	{
		file = $1; sub(/:$/, "", file); k = split(file, fp, "/")
		layer = fp[k - 1]; f = "src/" layer "/" fp[k]; sub(/\.o$/, "", f)
		if ($2 == "U") { use[++nu] = $3 " " layer " " f; next }
		if ($2 ~ /^[TDBRW]$/) def[$3] = layer
	}
	END {
		for (i = 1; i <= nu; i++) {
			split(use[i], u, " ")
			if (!(u[1] in def) || def[u[1]] == u[2]) continue
			if (r[def[u[1]]] >= r[u[2]]) print "call " u[3] " " u[1] " (" def[u[1]] ")"
		}
	}' >>"$tmp/found"
fi

sort -u "$tmp/found" -o "$tmp/found"
grep -v '^[[:space:]]*\(#\|$\)' "$allowed" | sed 's/[[:space:]]*#.*//' | sort -u >"$tmp/allowed"
if [ -z "$objdir" ]; then
	grep -v '^call ' "$tmp/allowed" >"$tmp/allowed.inc" || true
	mv "$tmp/allowed.inc" "$tmp/allowed"
fi
status=0
comm -23 "$tmp/found" "$tmp/allowed" >"$tmp/new"
if [ -s "$tmp/new" ]; then
	echo "against the layer order ($order), docs/architecture.md:"
	sed 's/^/  /' "$tmp/new"
	status=1
fi
comm -13 "$tmp/found" "$tmp/allowed" >"$tmp/stale"
if [ -s "$tmp/stale" ]; then
	echo "no longer needed: remove from tests/layers/allowed.txt:"
	sed 's/^/  /' "$tmp/stale"
	status=1
fi
[ "$status" -ne 0 ] || echo "layers ($order): one-way, $(wc -l <"$tmp/allowed") known exception(s) in tests/layers/allowed.txt"
exit "$status"
