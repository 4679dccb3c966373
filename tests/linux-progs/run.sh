#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unpack Linux 6.12's annotated selftest programs from Debian's linux-source-6.12 into
# CACHE (once), compile them with clang-19 as Linux's selftests Makefile does, and run them.
# usage: run.sh RUNNER KBPF CACHE [runner options…]
# Programs that include "vmlinux.h" are compiled against the C dump of the runner's own
# BTF (`kbpf btf dump --format c --host RUNNER`): the host they run on.
# Env: KBPF_LINUX612_SOURCE (default /usr/src/linux-source-6.12.tar.xz), KBPF_CLANG19
# (default clang-19), KBPF_PROGS (space-separated object names to build; default: every
# progs/verifier_*.c).
set -euo pipefail
runner=$1 kbpf=$2 cache=$3
shift 3
tarball=${KBPF_LINUX612_SOURCE:-/usr/src/linux-source-6.12.tar.xz}
clang=${KBPF_CLANG19:-clang-19}
if [ ! -r "$tarball" ]; then
	echo "SKIP: $tarball not found (Debian package linux-source-6.12: scripts/install-deps)"
	exit 77
fi
if ! command -v "$clang" >/dev/null 2>&1; then
	echo "SKIP: $clang not found (Debian package clang-19: scripts/install-deps)"
	exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 not found (Linux's scripts/bpf_doc.py writes bpf_helper_defs.h)"
	exit 77
fi
top=$cache/linux-source-6.12
sel=$top/tools/testing/selftests/bpf
stamp=$cache/.unpacked
if [ ! -f "$stamp" ] || [ "$tarball" -nt "$stamp" ]; then
	rm -rf "$top"
	mkdir -p "$cache"
	# only what the programs need: nothing of Linux goes into the source tree
	tar -xJf "$tarball" -C "$cache" --wildcards \
		'linux-source-6.12/tools/testing/selftests/bpf/progs/*' \
		'linux-source-6.12/tools/testing/selftests/bpf/*.h' \
		'linux-source-6.12/tools/include/*' \
		'linux-source-6.12/tools/lib/bpf/*.h' \
		'linux-source-6.12/scripts/bpf_doc.py'
	touch "$stamp"
fi
# libbpf's headers as the selftests' Makefile installs them, with the generated helper
# definitions of 6.12's UAPI
inc=$cache/include
if [ ! -f "$inc/bpf/bpf_helper_defs.h" ] || [ "$stamp" -nt "$inc/bpf/bpf_helper_defs.h" ]; then
	mkdir -p "$inc/bpf"
	cp "$top"/tools/lib/bpf/{bpf_helpers.h,bpf_tracing.h,bpf_core_read.h,bpf_endian.h} "$inc/bpf/"
	python3 "$top/scripts/bpf_doc.py" --header --file "$top/tools/include/uapi/linux/bpf.h" \
		> "$inc/bpf/bpf_helper_defs.h.tmp"
	mv "$inc/bpf/bpf_helper_defs.h.tmp" "$inc/bpf/bpf_helper_defs.h"
fi
if [ ! -f "$inc/vmlinux.h" ] || [ "$runner" -nt "$inc/vmlinux.h" ]; then
	"$kbpf" btf dump --format c --host "$runner" > "$inc/vmlinux.h.tmp" && mv "$inc/vmlinux.h.tmp" "$inc/vmlinux.h"
fi
# Linux's Makefile: -idirafter each of clang's own system include directories
sysinc=()
while read -r d; do sysinc+=(-idirafter "$d"); done < <("$clang" -v -E - </dev/null 2>&1 |
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|\1|p }')
flags=(-g -Wall -Werror -D__TARGET_ARCH_x86 -mlittle-endian -I"$inc" -I"$sel" -I"$top/tools/include/uapi"
	-Wno-compare-distinct-pointer-types "${sysinc[@]}" -DENABLE_ATOMICS_TESTS -O2 --target=bpf -mcpu=v3)
obj=$cache/obj
mkdir -p "$obj"
names=${KBPF_PROGS:-$(cd "$sel/progs" && ls verifier_*.c | sed 's/\.c$//')}
objs=()
notbuilt=0
for n in $names; do
	o=$obj/$n.o
	vm=0
	grep -q 'vmlinux\.h\|bpf_experimental\.h' "$sel/progs/$n.c" && vm=1
	if { [ ! -f "$o" ] && [ ! -f "$obj/$n.err" ]; } || [ "$stamp" -nt "$o" ] ||
	   { [ $vm = 1 ] && [ "$inc/vmlinux.h" -nt "$o$([ -f "$o" ] || echo .err)" ]; }; then
		rm -f "$o" "$obj/$n.err"
		"$clang" "${flags[@]}" -c "$sel/progs/$n.c" -o "$o.tmp" 2>"$obj/$n.err" && mv "$o.tmp" "$o" && rm -f "$obj/$n.err"
	fi
	if [ -f "$o" ]; then
		objs+=("$o")
	else
		notbuilt=$((notbuilt + 1))
		echo "NOT BUILT $n: $(grep -m1 'error' "$obj/$n.err" || head -1 "$obj/$n.err")"
	fi
done
# __btf_path("btf__NAME.bpf.o"): test_loader hands that object's BTF to libbpf as the
# CO-RE target (btf_custom_path, relative to test_progs' directory, where the Makefile
# builds progs/btf__NAME.c); built next to the programs, the harness finds it there
for n in $names; do
	for b in $(sed -n 's/.*__btf_path("\([^"]*\)\.bpf\.o").*/\1/p' "$sel/progs/$n.c" | sort -u); do
		bo=$obj/$b.bpf.o
		if [ ! -f "$bo" ] || [ "$stamp" -nt "$bo" ]; then
			"$clang" "${flags[@]}" -c "$sel/progs/$b.c" -o "$bo.tmp" 2>"$obj/$b.err" && mv "$bo.tmp" "$bo" &&
				rm -f "$obj/$b.err" || echo "NOT BUILT $b (__btf_path of $n): $(head -1 "$obj/$b.err")"
		fi
	done
done
echo "$((${#objs[@]})) objects built, $notbuilt not built (counted as not applicable)"
exec "$runner" "$@" "${objs[@]}"
