#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build Linux 6.1's bpf-tcp-cc selftest objects (scripts/linux-tcp-objects: unpacked from
# Debian's linux-source-6.1 into CACHE, compiled unmodified; "vmlinux.h" = the runner's
# own BTF as C, the host they run on) and run Linux's bpf_tcp_ca subtests on them.
# usage: run.sh RUNNER KBPF CLANG CACHE [runner options…]
# Env: KBPF_LINUX_SOURCE (default /usr/src/linux-source-6.1.tar.xz).
set -euo pipefail
runner=$1 kbpf=$2 clang=$3 cache=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
rc=0
"$here/../../scripts/linux-tcp-objects" "$cache" --kbpf "$kbpf" --host "$runner" --clang "$clang" --quiet || rc=$?
# 77: no tarball, clang or libbpf-dev (the reason is printed); 1: an object did not
# compile (its message is printed; the runner fails that subtest, saying why)
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || [ $rc = 1 ] || exit $rc
exec "$runner" "$cache" "$@"
