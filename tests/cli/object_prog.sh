#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The loader as the kbpf command shows it (issue 19, items 1 and 6):
#  - --host PLUGIN.so means the same in every command: the plugin's BTF and its
#    kbpf_host_init (kfuncs, program types), so a program calling the plugin's kfuncs
#    verifies and runs from the shell;
#  - --btf FILE: the CO-RE target of the object (libbpf's btf_custom_path), not the host;
#  - a failed CO-RE relocation explained as libbpf explains it, not as "invalid func
#    unknown#195896080";
#  - `verify/run FILE.o PROG` touch only PROG; LD_ABS in a socket filter object runs.
# usage: object_prog.sh KBPF PLUGIN_SO CHECKOUT_O TEST_BPF_DIR TEST_HOST
set -u
kbpf=$1 plugin=$2 checkout=$3 objs=$4 test_host=$5
source "$(dirname "$0")/lib.sh"

# --- 1: the plugin host, in every command ------------------------------------------
expect 0 '^sell: safe as checkout$' -- verify "$checkout" sell --host "$plugin"
expect 0 'retval: 0x5dc \(1500\)' -- run "$checkout" sell --host "$plugin"
# the till as the context: 1000 cents and no sale before, 2500 after (--mem-out)
printf '\xe8\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$tmp/till.bin"
expect 0 'retval: 0x9c4 \(2500\)' -- run "$checkout" sell --host "$plugin" --ctx "$tmp/till.bin" --mem-out "$tmp/till.out"
if [ "$(od -An -tu4 -N12 "$tmp/till.out" | tr -s ' ')" = " 2500 0 1" ]; then ok; else bad "till after the run: $(od -An -tx1 "$tmp/till.out")"; fi
expect 0 'sell +checkout +unspec' -- prog list "$checkout" --host "$plugin"
expect 0 'call shop_discount' -- prog dump "$checkout" sell --host "$plugin"
expect 0 'sell: section checkout' -- prog load "$checkout" --host "$plugin"
expect 0 '' -- map dump "$checkout" --host "$plugin"
# tcp-sim: BPF CCs load on the --host host; the shop plugin's BTF has no TCP host types
expect_error 1 "section 'struct_ops/reno_ssthresh' has no program type on this host" -- tcp-sim --cc "$objs/tcp_reno.bpf.o" --duration 1s --host "$plugin"
expect 0 'Jain fairness index' -- tcp-sim --cc "$objs/tcp_reno.bpf.o" --duration 1s --host "$kbpf"
# without the plugin the kfuncs are not there: the object does not load
expect_error 1 "shop_discount" -- run "$checkout" sell
expect 0 '^/\* program type checkout \*/$' -- kfuncs --host "$plugin"
# the README's own example: --type names a Linux type by libbpf's section name
expect 0 'program type sched_cls: no kfuncs' -- kfuncs --host "$plugin" --type tc

# --- --btf: the CO-RE target, per object ---------------------------------------------
# core_host.bpf.o reads the test host's structs: against kbpf's own BTF its relocations
# fail; against the test host's (as --btf or as --host) they resolve
expect 1 'failed to resolve CO-RE relocation #0: no struct th_ctx in the target BTF' -- \
  verify "$objs/core_host.bpf.o" read_flow
out=$("$kbpf" verify --btf "$test_host" "$objs/core_host.bpf.o" read_flow 2>&1)
if grep -q "CO-RE\|unknown#195896080" <<<"$out"; then bad "--btf: relocations not resolved: $out"; else ok; fi
out2=$("$kbpf" verify --host "$test_host" "$objs/core_host.bpf.o" read_flow 2>&1)
if [ "$out" = "$out2" ]; then ok; else bad "--btf and --host differ: $out // $out2"; fi
expect_error 1 "btf_custom_path '/nonexistent.btf': cannot read BTF: No such file or directory" -- \
  verify --btf /nonexistent.btf "$objs/core_host.bpf.o" read_flow

# --- 6: CO-RE failures as libbpf words them --------------------------------------------
expect 1 '^0: <invalid CO-RE relocation>$' -- verify "$objs/core_host.bpf.o" read_flow
out=$("$kbpf" verify "$objs/core_host.bpf.o" read_flow 2>&1)
if grep -q "unknown#195896080" <<<"$out"; then bad "verify still says unknown#195896080: $out"; else ok; fi
# the one line of run/prog dump names the relocation reached (a level-0 log)
expect_error 1 "program 'read_flow': failed to resolve CO-RE relocation #0: no struct th_ctx in the target BTF \(<byte_off> \[[0-9]+\] struct th_ctx.flow \(0:0 @ offset 0\)\)" -- \
  run "$objs/core_host.bpf.o" read_flow

# --- 6: PROG alone; LD_ABS in an object --------------------------------------------
expect 0 '^good: safe as socket_filter$' -- verify "$objs/verify_one.bpf.o" good
expect 0 '^ldabs: safe as socket_filter$' -- verify "$objs/verify_one.bpf.o" ldabs
expect 1 "program 'bad'.*unknown helper #9999" -- verify "$objs/verify_one.bpf.o" bad
expect 1 "unknown helper #9999|unknown#9999" -- verify "$objs/verify_one.bpf.o"
# the whole object: the programs do not load together; each is verified on its own
expect 1 '^good: safe as socket_filter$' -- verify "$objs/verify_one.bpf.o"
expect 1 '^ldabs: safe as socket_filter$' -- verify "$objs/verify_one.bpf.o"
expect 1 '^bad: rejected \(Invalid argument\)$' -- verify "$objs/verify_one.bpf.o"
expect 0 'retval: 0x1 \(1\)' -- run "$objs/verify_one.bpf.o" good
printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x08\x00\x45\x00\x00\x14' >"$tmp/pkt.bin"
expect 0 'retval: 0x45 \(69\)' -- run "$objs/verify_one.bpf.o" ldabs --packet "$tmp/pkt.bin"
expect 0 'retval: 0x45 \(69\)' -- run --jit "$objs/verify_one.bpf.o" ldabs --packet "$tmp/pkt.bin"
expect 0 'w0 = 1' -- prog dump "$objs/verify_one.bpf.o" good
# a map type kbpf cannot create, used by another program only: left out (autocreate off)
expect 0 '^plain: safe as socket_filter$' -- verify "$objs/map_skip.bpf.o" plain
expect 0 'retval: 0x3 \(3\)' -- run "$objs/map_skip.bpf.o" plain
expect 0 'map\[idx:1\]  # counts$' -- prog dump "$objs/map_skip.bpf.o" plain
# the program that uses it is told why the map is not there, in one line
expect_error 1 "map 'devmap': cannot create it .*map type not implemented by kbpf" -- verify "$objs/map_skip.bpf.o" redirect
expect_error 1 "map 'devmap': cannot create it" -- run "$objs/map_skip.bpf.o" redirect
expect_error 1 "map 'devmap': cannot create it" -- verify "$objs/map_skip.bpf.o"

finish
