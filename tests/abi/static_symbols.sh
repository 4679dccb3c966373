#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: static_symbols.sh CC INCLUDE_DIR LIBRARY.a
# The static library's global symbols are exactly its public API, as the shared library's
# exports are (exported_symbols.sh): every symbol an object of LIBRARY.a defines with
# global (or weak) binding is a function declared in INCLUDE_DIR/kbpf/, and every one
# declared there is defined. The internals (state_new, vlog, x86_mov_rr…) are local
# symbols, so an embedder that links the library statically may define its own.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=$1 inc=$2 lib=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$here/public_decls.sh" "$cc" "$inc" >"$tmp/declared"
[ -s "$tmp/declared" ] || { echo "no declarations found in $inc/kbpf/"; exit 1; }
# "0000000000012340 T kbpf_map_create"; "file.o:" headers and blank lines have other shapes
nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort >"$tmp/global"
status=0
report() {
	[ -s "$1" ] || return 0
	echo "$2"
	sed 's/^/  /' "$1"
	status=1
}
sort -u "$tmp/global" >"$tmp/global.u"
uniq -d "$tmp/global" >"$tmp/dup"
report "$tmp/dup" "$lib defines these global symbols more than once:"
comm -23 "$tmp/global.u" "$tmp/declared" >"$tmp/extra"
report "$tmp/extra" "$lib has $(wc -l <"$tmp/extra") global symbol(s) not declared in $inc/kbpf/ (make them
static, hidden, or declare them there with KBPF_API):"
comm -13 "$tmp/global.u" "$tmp/declared" >"$tmp/missing"
report "$tmp/missing" "$(wc -l <"$tmp/missing") function(s) declared in $inc/kbpf/ are not defined globally in $lib:"
[ "$status" -ne 0 ] || echo "$lib: $(wc -l <"$tmp/global.u") global symbols, all declared in $inc/kbpf/"
exit "$status"
