#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: install.sh CMAKE BUILD_DIR SOURCE_DIR
# `cmake --install` into a temporary prefix, then, as an embedder would, out of the tree:
#  1. examples/kfunc-host with make and pkg-config (its Makefile), run;
#  2. examples/kfunc-host with find_package(kbpf) (its CMakeLists.txt), run;
#  3. a program on kbpf::linux and kbpf::tcp (find_package) and on pkg-config's
#     kbpf-linux/kbpf-tcp, run;
#  4. the installed kbpf command auditing the example's plugin.
set -eu
cmake=$1 build=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
prefix=$tmp/prefix

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
libdir=$(dirname "$(find "$prefix" -name libkbpf.so.0 | head -n1)")
[ -n "$libdir" ] && [ -d "$libdir" ] || fail "no libkbpf.so.0 installed"
for f in "$libdir/libkbpf.so" "$libdir/libkbpf.a" "$libdir/libkbpf_linux.a" "$libdir/libkbpf_tcp.a" \
	 "$libdir/pkgconfig/kbpf.pc" "$libdir/pkgconfig/kbpf-linux.pc" "$libdir/pkgconfig/kbpf-tcp.pc" \
	 "$libdir/cmake/kbpf/kbpfConfig.cmake" "$libdir/cmake/kbpf/KbpfHostBtf.cmake" \
	 "$prefix/include/kbpf/kbpf.h" "$prefix/include/kbpf/linux.h" "$prefix/include/kbpf/tcp.h" \
	 "$prefix/bin/kbpf"; do
	[ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
# every public header compiles on its own from the installed tree
for h in "$prefix"/include/kbpf/*.h; do
	echo "#include <kbpf/$(basename "$h")>" >"$tmp/h.c"
	cc -std=c11 -Wall -Werror -I"$prefix/include" -fsyntax-only "$tmp/h.c" ||
		fail "installed <kbpf/$(basename "$h")> does not compile on its own"
done
expect="program returned 2500; till: 1 sale(s), 2500 cents; discount 25%, last total 2500"

# 1. make + pkg-config
export PKG_CONFIG_PATH="$libdir/pkgconfig"
mkdir "$tmp/make"
make -s -C "$src/examples/kfunc-host" O="$tmp/make" >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log"; fail "make with pkg-config"; }
out=$("$tmp/make/kfunc-host" "$tmp/make/checkout.bpf.o") || fail "kfunc-host (make) failed: $out"
[ "$out" = "$expect" ] || fail "kfunc-host (make): '$out'"
ldd "$tmp/make/kfunc-host" | grep -q "libkbpf.so.0 => $libdir" || fail "kfunc-host (make) does not use the installed libkbpf.so.0"
echo "make + pkg-config: $out"

# 2. find_package
"$cmake" -S "$src/examples/kfunc-host" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cm.log" 2>&1 &&
	"$cmake" --build "$tmp/cm" >>"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "find_package build"; }
out=$("$tmp/cm/kfunc-host" "$tmp/cm/checkout.bpf.o") || fail "kfunc-host (find_package) failed: $out"
[ "$out" = "$expect" ] || fail "kfunc-host (find_package): '$out'"
echo "find_package: $out"

# 3. the hosts, both ways
"$cmake" -S "$src/tests/install/consumer" -B "$tmp/hosts" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/hosts.log" 2>&1 &&
	"$cmake" --build "$tmp/hosts" >>"$tmp/hosts.log" 2>&1 || { cat "$tmp/hosts.log"; fail "kbpf::linux/kbpf::tcp build"; }
"$tmp/hosts/hosts" || fail "kbpf::linux/kbpf::tcp program failed"
cc -O2 $(pkg-config --variable=host_btf_cflags kbpf) -o "$tmp/hosts-pc" "$src/tests/install/consumer/hosts.c" \
	$(pkg-config --cflags --libs kbpf-linux kbpf-tcp) -Wl,-rpath,"$libdir" || fail "build with pkg-config kbpf-linux kbpf-tcp"
LLVM_OBJCOPY=$(pkg-config --variable=objcopy kbpf) pahole $(pkg-config --variable=pahole_flags kbpf) "$tmp/hosts-pc" >/dev/null ||
	fail "pahole with pkg-config's flags"
"$tmp/hosts-pc" || fail "kbpf-linux/kbpf-tcp (pkg-config) program failed"

# 4. the command
"$prefix/bin/kbpf" kfuncs --host "$tmp/make/shop-kfuncs.so" >"$tmp/kfuncs.txt" 2>&1 || { cat "$tmp/kfuncs.txt"; fail "installed kbpf kfuncs"; }
grep -q "shop_discount(" "$tmp/kfuncs.txt" || { cat "$tmp/kfuncs.txt"; fail "installed kbpf kfuncs: no shop_discount"; }
echo "installed kbpf kfuncs --host shop-kfuncs.so: ok"
