#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: exported_symbols.sh CC INCLUDE_DIR LIBRARY.so VERSION SONAME
#        exported_symbols.sh CC INCLUDE_DIR --static LIBRARY.a
# The shared library's exports are exactly its public API: every symbol it defines in its
# dynamic symbol table (nm -D --defined-only) is a function declared in INCLUDE_DIR/kbpf/,
# carries the symbol version VERSION (cmake/libkbpf.map), and every function declared
# there is exported. An internal function that leaks out would clash with an embedder's
# own (x86_mov_rr, state_new, vlog…); a declared one that is missing breaks its link.
# With --static, the same of the static library: every symbol its objects define with
# global (or weak) binding is declared there, once, and every declared one is defined;
# its internals are local symbols (CMakeLists.txt: libkbpf.a).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=$1 inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$here/public_decls.sh" "$cc" "$inc" >"$tmp/declared"
[ -s "$tmp/declared" ] || { echo "no declarations found in $inc/kbpf/"; exit 1; }
status=0
# report FILE MESSAGE: print MESSAGE and FILE's lines, indented, if FILE is not empty
report() {
	[ -s "$1" ] || return 0
	echo "$2"
	sed 's/^/  /' "$1"
	status=1
}

if [ "$3" = --static ]; then
	lib=$4
	# "0000000000012340 T kbpf_map_create"; "file.o:" headers and blank lines have other shapes
	# (ASan adds a global __odr_asan.NAME next to each exported variable NAME)
	nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | grep -v '^__odr_asan\.' | sort >"$tmp/global"
	sort -u "$tmp/global" >"$tmp/exported"
	uniq -d "$tmp/global" >"$tmp/dup"
	report "$tmp/dup" "$lib defines these global symbols more than once:"
	comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
	report "$tmp/extra" "$lib has $(wc -l <"$tmp/extra") global symbol(s) not declared in $inc/kbpf/ (make them
static, or declare them there with KBPF_API):"
	comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
	# KBPF_ABI_ELSEWHERE: a file of declared functions another library defines (# comments)
	if [ -n "${KBPF_ABI_ELSEWHERE:-}" ]; then
		sed 's/#.*//; /^ *$/d' "$KBPF_ABI_ELSEWHERE" | sort >"$tmp/elsewhere"
		comm -23 "$tmp/missing" "$tmp/elsewhere" >"$tmp/missing2"
		mv "$tmp/missing2" "$tmp/missing"
	fi
	report "$tmp/missing" "$(wc -l <"$tmp/missing") function(s) declared in $inc/kbpf/ are not defined globally in $lib:"
	[ "$status" -ne 0 ] || echo "$lib: $(wc -l <"$tmp/exported") global symbols, all declared in $inc/kbpf/"
	exit "$status"
fi

lib=$3 version=$4 soname=$5
# "0000000000012340 T kbpf_map_create@@KBPF_0.1"; the version node itself is an A symbol
nm -D --defined-only --with-symbol-versions "$lib" >"$tmp/nm"
awk '$2 != "A" { print $3 }' "$tmp/nm" | sort >"$tmp/exported_versioned"
sed 's/@.*//' "$tmp/exported_versioned" | sort -u >"$tmp/exported"

comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
report "$tmp/extra" "$lib exports $(wc -l <"$tmp/extra") symbol(s) not declared in $inc/kbpf/ (make them
static, or declare them there with KBPF_API and list them in cmake/libkbpf.map):"
comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
report "$tmp/missing" "$(wc -l <"$tmp/missing") function(s) declared in $inc/kbpf/ are not exported by $lib
(mark the declaration KBPF_API, define the function, and list it in cmake/libkbpf.map):"
grep -v "@@$version\$" "$tmp/exported_versioned" >"$tmp/unversioned" || true
report "$tmp/unversioned" "exported without the default version $version:"
# the name programs record (DT_NEEDED) and the package installs
got=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$got" != "$soname" ]; then
	echo "$lib: soname '$got', expected '$soname'"
	status=1
fi
[ "$status" -ne 0 ] || echo "$lib: $(wc -l <"$tmp/exported") exported functions, all declared in $inc/kbpf/, all $version"
exit "$status"
