#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: public_decls.sh CC INCLUDE_DIR
# Prints, sorted, the functions that the headers INCLUDE_DIR/kbpf/*.h declare (not static
# inline ones): the compiler parses them (-aux-info lists every prototype it saw, with the
# file that declared it), so macros, line breaks and comments do not fool the list; and
# the variables they declare "extern KBPF_API". KBPF_ABI_EXTRA_INC: another include
# directory the headers need (kbpf's own, for the hosts' headers).
set -eu
cc=$1 inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$inc"/kbpf/*.h; do
	echo "#include <kbpf/$(basename "$h")>"
done >"$tmp/all.c"
"$cc" -std=gnu11 -I"$inc" ${KBPF_ABI_EXTRA_INC:+-I"$KBPF_ABI_EXTRA_INC"} -fsyntax-only -aux-info "$tmp/aux.txt" "$tmp/all.c"
# /* /path/include/kbpf/map.h:77:NC */ extern int kbpf_map_create (const struct … *, …);
grep "$inc/kbpf/" "$tmp/aux.txt" | grep -v '\*/ static ' |
	sed -n 's/^[^*]*\*[^*]*\*\/ [^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\) (.*/\1/p' >"$tmp/names"
sed -n 's/^extern KBPF_API [^;(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$inc"/kbpf/*.h >>"$tmp/names"
sort -u "$tmp/names"
