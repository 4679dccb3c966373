#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: static_embedder.sh CC SOURCE_DIR LIBRARY.a "CFLAGS"
# Build tests/abi/static_embedder.c, which defines its own vlog, state_new, check_cfg and
# x86_mov_rr, statically against LIBRARY.a, as an embedder would (-lkbpf and its
# dependencies), and run it. With kbpf's internals global, the link fails with "multiple
# definition"; with them local (CMakeLists.txt: libkbpf.a), it links and runs.
set -eu
cc=$1 src=$2 lib=$3 cflags=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086 # $cflags: zero or more flags
if ! $cc -std=gnu11 -Wall -Werror $cflags -I"$src/include" "$src/tests/abi/static_embedder.c" "$lib" \
	-lbpf -lelf -lz -lffi -lpthread -o "$tmp/embedder" 2>"$tmp/cc.err"; then
	echo "FAIL: an embedder with its own vlog/state_new/check_cfg/x86_mov_rr does not link against $lib:"
	head -c 2000 "$tmp/cc.err"
	exit 1
fi
"$tmp/embedder"
