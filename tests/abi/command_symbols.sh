#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: command_symbols.sh CC SOURCE_DIR KBPF_EXECUTABLE LINK_TXT OBJECT_DIR
# The kbpf command is an embedder like any other: it links the public libkbpf.a and the
# hosts' public archives, never libkbpf_internal.a or a host's _internal one (its link
# line, LINK_TXT), and what it exports to the plugins it loads (-rdynamic: nm -D) is
# public API (declared in include/kbpf/ and the hosts' include/kbpf/) or its own
# functions (its objects in OBJECT_DIR): no internal of the libraries.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=$1 src=$2 exe=$3 link=$4 objdir=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

if grep -Eo '[^ ]*lib[a-z_]*_internal\.a' "$link" >"$tmp/internal"; then
	echo "the kbpf command links internal archives ($link):"
	sed 's/^/  /' "$tmp/internal"
	status=1
fi
grep -q 'libkbpf\.a' "$link" || { echo "the kbpf command does not link the public libkbpf.a ($link)"; status=1; }

"$here/public_decls.sh" "$cc" "$src/include" >"$tmp/declared"
for h in linux tcp; do
	KBPF_ABI_EXTRA_INC=$src/include "$here/public_decls.sh" "$cc" "$src/hosts/$h/include" >>"$tmp/declared"
done
# the command's own (tools/kbpf/*.c)
find "$objdir" -name '*.o' -exec nm -g --defined-only {} + | awk 'NF == 3 { print $3 }' >>"$tmp/declared"
sort -u -o "$tmp/declared" "$tmp/declared"
# linker-made symbols (_end, __bss_start, _IO_stdin_used…) and data_start are not code's
# and libc's variables copied into it (stdout@GLIBC_2.2.5, optind…) carry their version
nm -D --defined-only "$exe" | awk 'NF == 3 { print $3 }' | grep -v '@' |
	grep -v '^_' | grep -vx 'data_start' | sort -u >"$tmp/exported"
comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
if [ -s "$tmp/extra" ]; then
	echo "the kbpf command exports $(wc -l <"$tmp/extra") symbol(s) neither public nor its own:"
	sed 's/^/  /' "$tmp/extra"
	status=1
fi
[ "$status" -ne 0 ] || echo "$exe: links the public libraries; exports $(wc -l <"$tmp/exported") symbols, all public API or its own"
exit "$status"
