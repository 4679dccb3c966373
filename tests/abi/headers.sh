#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: headers.sh CC INCLUDE_DIR
# The public headers: <kbpf/kbpf.h> includes every other one, and each compiles on its
# own (it includes what it uses) as strict C11 with -Wall -Wextra -Werror -pedantic-errors.
set -eu
cc=$1 inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for h in "$inc"/kbpf/*.h; do
	n=$(basename "$h")
	[ "$n" = kbpf.h ] && continue
	grep -q "^#include <kbpf/$n>" "$inc/kbpf/kbpf.h" || { echo "<kbpf/kbpf.h> does not include <kbpf/$n>"; status=1; }
done
for h in "$inc"/kbpf/*.h; do
	printf '#include <kbpf/%s>\ntypedef int kbpf_header_check;\n' "$(basename "$h")" >"$tmp/one.c"
	"$cc" -std=c11 -Wall -Wextra -Werror -pedantic-errors -I"$inc" -fsyntax-only "$tmp/one.c" 2>"$tmp/err" ||
		{ echo "<kbpf/$(basename "$h")> does not compile on its own:"; cat "$tmp/err"; status=1; }
done
[ "$status" -ne 0 ] || echo "$(ls "$inc"/kbpf/*.h | wc -l) public headers: each compiles alone; kbpf.h includes them all"
exit "$status"
