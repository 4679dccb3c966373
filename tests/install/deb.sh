#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# usage: deb.sh CPACK BUILD_DIR SOURCE_DIR
# The .deb that `cpack` makes, checked without installing it on this machine (a real
# `dpkg -i` is done by hand: docs/embedding.md, "The Debian package"):
#  1. its control data (dpkg-deb -I): name, architecture, and a Depends that names the
#     package of every library the shipped libkbpf.so.0 and kbpf need (ldd, dpkg -S);
#  2. its contents (dpkg-deb -c): library with its soname link, static libraries,
#     headers, command, pkg-config and CMake files, shlibs;
#  3. extracted (dpkg -x): the kbpf command runs with LD_LIBRARY_PATH on the tree, and
#     examples/kfunc-host builds against the extracted tree with pkg-config and runs.
# Exits 77 (ctest: skipped) without dpkg-deb, dpkg-query or make.
set -eu
cpack=$1 build=$2 src=$3
for tool in dpkg-deb dpkg-query make pkg-config; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not found (not a Debian system?)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$cpack" --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack"; }
deb=$(find "$tmp/pkg" -maxdepth 1 -name 'kbpf_*.deb' | head -n1)
[ -n "$deb" ] || { cat "$tmp/cpack.log"; fail "cpack made no kbpf_*.deb"; }
echo "package: $(basename "$deb")"

# 1. control data
dpkg-deb -I "$deb" >"$tmp/info" || fail "dpkg-deb -I"
field() { sed -n "s/^ $1: //p" "$tmp/info"; }
[ "$(field Package)" = kbpf ] || fail "Package: '$(field Package)'"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture: '$(field Architecture)'"
depends=$(field Depends)
[ -n "$depends" ] || fail "no Depends"
dpkg-deb -I "$deb" shlibs >"$tmp/shlibs" 2>/dev/null || fail "no shlibs control file"
grep -q "^libkbpf 0 kbpf" "$tmp/shlibs" || { cat "$tmp/shlibs"; fail "shlibs does not name libkbpf 0"; }

# 2. contents
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$tmp/files"
for f in 'usr/lib/(.*/)?libkbpf\.so\.0$' 'usr/lib/(.*/)?libkbpf\.so$' 'usr/lib/(.*/)?libkbpf\.a$' \
	 'usr/lib/(.*/)?libkbpf_linux\.a$' 'usr/lib/(.*/)?libkbpf_tcp\.a$' 'usr/include/kbpf/kbpf\.h$' \
	 'usr/include/kbpf/linux\.h$' 'usr/include/kbpf/tcp\.h$' 'usr/bin/kbpf$' \
	 'usr/lib/(.*/)?pkgconfig/kbpf\.pc$' 'usr/lib/(.*/)?pkgconfig/kbpf-linux\.pc$' \
	 'usr/lib/(.*/)?cmake/kbpf/kbpfConfig\.cmake$'; do
	grep -Eq "^\./$f" "$tmp/files" || fail "not in the package: $f"
done
# every public header of the tree is in it
for h in "$src"/include/kbpf/*.h; do
	grep -q "^\./usr/include/kbpf/$(basename "$h")$" "$tmp/files" || fail "not in the package: include/kbpf/$(basename "$h")"
done

# 3. extracted
root=$tmp/root
dpkg -x "$deb" "$root" 2>/dev/null || dpkg-deb -x "$deb" "$root" || fail "dpkg -x"
libdir=$(dirname "$(find "$root/usr/lib" -name libkbpf.so.0 | head -n1)")
[ -f "$libdir/libkbpf.so.0" ] || fail "no libkbpf.so.0 extracted"
[ "$(readelf -d "$libdir/libkbpf.so.0" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" = libkbpf.so.0 ] ||
	fail "libkbpf.so.0's soname"
# the packages of what the shipped binaries load must be in Depends
for bin in "$libdir/libkbpf.so.0" "$root/usr/bin/kbpf"; do
	LD_LIBRARY_PATH=$libdir ldd "$bin" >"$tmp/ldd" || fail "ldd $bin"
	grep -q "not found" "$tmp/ldd" && { cat "$tmp/ldd"; fail "$(basename "$bin") needs a library that is not found"; }
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 }' "$tmp/ldd"); do
		case $lib in "$root"/*) continue ;; esac # the package's own
		pkg=
		real=$(readlink -f "$lib")
		# merged /usr: dpkg may know the file under /lib or /usr/lib, by either name
		for p in "$lib" "$real" "${lib#/usr}" "${real#/usr}" "/usr$lib" "/usr$real"; do
			pkg=$(dpkg-query -S "$p" 2>/dev/null | head -n1 | cut -d: -f1)
			[ -z "$pkg" ] || break
		done
		[ -n "$pkg" ] || fail "$(basename "$bin") loads $lib, which no package owns"
		echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -qx "$pkg" ||
			fail "$(basename "$bin") loads $lib (package $pkg), not in Depends: $depends"
	done
done
out=$(LD_LIBRARY_PATH=$libdir "$root/usr/bin/kbpf" --version) || fail "extracted kbpf --version"
echo "$out" | grep -q "0\.1" || fail "extracted kbpf --version: '$out'"
echo "extracted kbpf --version: $out"
# a consumer built against the extracted tree with pkg-config (prefix moved to it)
pc="pkg-config --define-variable=prefix=$root/usr"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
$pc --cflags kbpf | grep -q -- "-I$root/usr/include" || fail "pkg-config --cflags kbpf: $($pc --cflags kbpf)"
mkdir "$tmp/make"
make -s -C "$src/examples/kfunc-host" O="$tmp/make" PKG_CONFIG="$pc" >"$tmp/make.log" 2>&1 ||
	{ cat "$tmp/make.log"; fail "kfunc-host with pkg-config against the extracted package"; }
LD_LIBRARY_PATH=$libdir ldd "$tmp/make/kfunc-host" | grep -q "libkbpf.so.0 => $libdir" ||
	fail "kfunc-host does not load the package's libkbpf.so.0"
out=$(LD_LIBRARY_PATH=$libdir "$tmp/make/kfunc-host" "$tmp/make/checkout.bpf.o") || fail "kfunc-host: $out"
expect="program returned 2500; till: 1 sale(s), 2500 cents; discount 25%, last total 2500"
[ "$out" = "$expect" ] || fail "kfunc-host: '$out'"
echo "kfunc-host against the extracted package: $out"
