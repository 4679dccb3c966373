#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Globals from the command line (issue 19, item 3): `--set NAME=VALUE` typed by BTF
# (integers, bool, enumerators by name, char arrays as strings, anything as hex bytes)
# into .rodata before load and .data/.bss before the run; `kbpf run --show-globals`
# prints every variable after the run as bpftool shows BTF values.
# usage: globals.sh KBPF_BINARY TEST_BPF_DIR
set -u
kbpf=$1
objs=$2
source "$(dirname "$0")/lib.sh"
cfg=$objs/config.bpf.o glob=$objs/globals.bpf.o

# the defaults, typed
expect 0 '^\.rodata mode = "MODE_OFF"$' -- run "$cfg" --show-globals
expect 0 '^\.rodata limits = \{"lo":1,"hi":2,"bias":-3\}$' -- run "$cfg" --show-globals
expect 0 '^\.rodata name = "none"$' -- run "$cfg" --show-globals
expect 0 '^\.rodata verbose = false$' -- run "$cfg" --show-globals
expect 0 '^\.data last = -1$' -- run "$cfg" --show-globals
expect 0 '^\.bss hits = 0$' -- run "$cfg" --show-globals
expect 0 'retval: 0x0 \(0\)' -- run "$cfg"
# configured: the program sees the values (its return value and what it wrote)
set_all=(--set mode=MODE_SLOW --set verbose=true --set name=xyz --set 'limits=hex:0a 00 14 00 05 00' --set hits=7)
expect 0 'retval: 0x5 \(5\)' -- run "$cfg" "${set_all[@]}"
expect 0 '^\.data last = 1125$' -- run "$cfg" "${set_all[@]}" --show-globals     # 'x' + 1000 + 5
expect 0 '^\.bss hits = 17$' -- run "$cfg" "${set_all[@]}" --show-globals        # 7 + 20 - 10
expect 0 '^\.rodata limits = \{"lo":10,"hi":20,"bias":5\}$' -- run "$cfg" "${set_all[@]}" --show-globals
expect 0 'retval: 0x2 \(2\)' -- run "$cfg" --set mode=2
expect 0 'retval: 0x2 \(2\)' -- run --jit "$cfg" --set mode=MODE_FAST
expect 0 'retval: 0x2 \(2\)' -- run --checked "$cfg" --set mode=MODE_FAST --ctx /dev/null
expect 0 'safe as socket_filter' -- verify "$cfg" --set mode=MODE_FAST
# globals.bpf.o: .data, .rodata, .bss, .data.foo, .rodata.bar, a string, an array
expect 0 'retval: 0x98 \(152\)' -- run "$glob" globals
expect 0 'retval: 0xed \(237\)' -- run "$glob" globals --set rodata_var=100 --set data_var=-5 --set 'str=hi there' --set bss_var=0x10
expect 0 '^\.data str = "hi there"$' -- run "$glob" globals --set 'str=hi there' --show-globals
expect 0 '^\.data big = \[1,2,3,4\]$' -- run "$glob" globals --show-globals
expect 0 '^\.data big = \[9,2,3,4\]$' -- run "$glob" globals --show-globals \
  --set 'big=09 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 04 00 00 00 00 00 00 00'
expect 0 '^\.data\.foo foo_var = 10$' -- run "$glob" globals --show-globals
expect 0 '^\.rodata\.bar bar_var = 8$' -- run "$glob" globals --set bar_var=8 --show-globals
# errors: one line, exit 2
expect_error 2 "no global variable 'nope'" -- run "$cfg" --set nope=1
expect_error 2 "--set mode: 'MODE_X' is not a value of its type \(4 bytes\): expected an enumerator's name or a number" -- run "$cfg" --set mode=MODE_X
expect_error 2 "--set verbose: '2' does not fit" -- run "$cfg" --set verbose=2
expect_error 2 "--set name: '123456789' does not fit \(8 bytes\)" -- run "$cfg" --set name=123456789
expect_error 2 "--set limits: 'hex:01' does not fit \(6 bytes\)" -- run "$cfg" --set limits=hex:01
expect_error 2 "--set last: '4294967296' does not fit" -- run "$cfg" --set last=4294967296
expect_error 2 "expected NAME=VALUE" -- run "$cfg" --set mode
expect_error 2 "--show-globals goes with a BPF object" -- run --show-globals /dev/null

finish
