#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of the object subcommands (kbpf prog, kbpf map, kbpf run FILE.o) on
# the compiled tests/bpf programs, run as a user would run them.
# usage: object.sh KBPF_BINARY BPF_OBJECT_DIR
set -u
kbpf=$1
objs=$2
one_line_errors=1
. "$(dirname "$0")/lib.sh"

o() { echo "$objs/$1.bpf.o"; }

# --- help and usage ---
for c in prog map; do
  expect 0 "usage: kbpf $c" -- $c --help
  expect 0 "usage: kbpf $c" -- help $c
  expect 2 "kbpf $c: " -- $c
  expect 2 "kbpf $c: unknown subcommand" -- $c frobnicate
done
expect 2 "kbpf prog: " -- prog list
expect 2 "kbpf prog: " -- prog list a b
expect 2 "kbpf prog: " -- prog dump a b c
expect 2 "kbpf prog: " -- prog list --no-such-option "$(o subprogs)"
expect 2 "--raw goes with 'dump'" -- prog list --raw "$(o subprogs)"
expect 2 "kbpf map: " -- map dump
expect 2 "expected NAME=VALUE" -- map dump --kconfig FOO "$(o kconfig)"
expect 2 "is not a number" -- map dump --kconfig FOO=bar "$(o kconfig)"

# --- prog list ---
expect 0 "^NAME +SECTION +TYPE +INSNS +AUTOLOAD" -- prog list "$(o subprogs)"
expect 0 "calls_nested +xdp +xdp +8 +yes" -- prog list "$(o subprogs)"
expect 0 "not_autoloaded +\?socket +socket_filter +2 +no" -- prog list "$(o subprogs)"
expect 0 "probe +kprobe/do_sys_open +kprobe" -- prog list "$(o subprogs)"
expect 0 "unknown_type +my_custom_section +unspec" -- prog list "$(o subprogs)"
expect 0 "test_calc +struct_ops/test_calc +struct_ops" -- prog list "$(o struct_ops)"

# --- prog dump: relocated, subprograms appended, source lines ---
expect 0 "calls_nested \(section xdp, xdp\), 18 insns" -- prog dump "$(o subprogs)" calls_nested
expect 0 "^int nested\(int x\):" -- prog dump "$(o subprogs)" calls_nested
expect 0 "^; return a \* b; @ subprogs.bpf.c:14:" -- prog dump "$(o subprogs)" calls_nested
expect 0 "^ +1: \(85\) call pc\+6" -- prog dump "$(o subprogs)" calls_nested
expect 0 "r1 = map\[idx:[0-9]+\]\[0\]\+0  # .bss" -- prog dump "$(o globals)" globals
expect 0 "call bpf_map_lookup_elem#1" -- prog dump "$(o maps)" use_maps
expect 0 "call bpf_ringbuf_reserve#131" -- prog dump "$(o maps)" use_maps
expect 0 "not_autoloaded \(section \?socket" -- prog dump "$(o subprogs)" not_autoloaded
expect 0 "as in the ELF file" -- prog dump --raw "$(o kfunc_weak)"
expect 0 "call kfunc#0" -- prog dump --linked "$(o kfunc_weak)" weak_kfunc
# by default what runs: the verifier proved the unresolved weak kfunc's call dead
expect 0 "^ +4: \(05\) goto pc-1" -- prog dump "$(o kfunc_weak)" weak_kfunc
expect 2 "--linked goes with 'dump'" -- prog dump --linked --raw "$(o kfunc_weak)"
# a bpf_loop inlined: a BPF-to-BPF call of the callback, its source lines moved with it
expect 0 "^ +[0-9]+: \(b5\) if r1 <= 0x800000 goto pc\+2" -- prog dump "$(o callbacks)" loop_stop
expect 0 "^; return c.sum \* 100 \+ n; @ callbacks.bpf.c" -- prog dump "$(o callbacks)" loop_stop
out=$("$kbpf" prog dump "$(o subprogs)")
if grep -q "^calls_static" <<<"$out" && ! grep -q "^not_autoloaded" <<<"$out"; then ok; else bad "prog dump: all loaded programs, not the '?' one"; fi
expect 1 "no program 'nope' \(programs: tail_target, use_maps, lookup_missing\)" -- prog dump "$(o maps)" nope

# --- map dump ---
# a per-CPU cgroup storage shows every CPU's value (its host buffer was value_size: the
# dump wrote past it)
expect 0 "value \(cpu 0\): 00 00 00 00 00 00 00 00" -- map dump "$(o cgroup_storage)" percpu
expect 0 "map '.data': array, key 4, value 56, max_entries 1" -- map dump "$(o globals)"
expect 0 "data_var = \(int\)10" -- map dump "$(o globals)" .data
expect 0 "big = \(long long\[4\]\)\[1,2,3,4,\]" -- map dump "$(o globals)" .data
expect 0 "flags 0x80, frozen" -- map dump "$(o globals)" .rodata
# a map whose value type holds a bpf_spin_lock (its BTF passed at creation)
expect 0 "map 'counters': array, key 4, value 16, max_entries 1, flags 0x0, bpf_spin_lock at 4" -- map dump "$(o spin_lock)"
expect 0 "CONFIG_HZ = \(int\)250" -- map dump "$(o kconfig)"
expect 0 "CONFIG_HZ = \(int\)100" -- map dump --kconfig CONFIG_HZ=100 "$(o kconfig)"
expect 0 "CONFIG_KBPF_U8 = \(unsigned char\)9" -- map dump --kconfig CONFIG_KBPF_U8=9 "$(o kconfig)"
expect 0 "slot 1: program 'tail_target'" -- map dump "$(o maps)" jmp
expect 0 "value \(cpu 0\)" -- map dump "$(o maps)" pcpu_array
# a per-CPU cgroup storage's host value is every CPU's copy, as a per-CPU array's
expect 0 "value \(cpu 0\)" -- map dump "$(o cgroup_storage)" percpu
expect 0 "0 bytes of records pending" -- map dump "$(o maps)" rb
expect 0 "map 'legacy_counts': array, key 4, value 8, max_entries 2" -- map dump "$(o legacy_maps)"
expect 1 "no map 'nope'" -- map dump "$(o maps)" nope
# maps of maps: the template, then each slot's inner map by name
expect 0 "inner map template: map 'outer_arr.inner' \(array, key 4, value 8, max_entries 2\)" -- map dump "$(o map_in_map)" outer_arr
expect 0 "slot 2: map 'inner_b' \(array, key 4, value 8, max_entries 2\)" -- map dump "$(o map_in_map)" outer_arr
expect 0 "map 'outer_hash': hash_of_maps, key 4, value 4, max_entries 8" -- map dump "$(o map_in_map)"

# --- run FILE.o [PROG] ---
expect 0 "retval: 0x70 \(112\)" -- run "$(o maps)" use_maps
expect 0 "retval: 0x3 \(3\)" -- run --repeat 3 "$(o spin_lock)" incr
expect 0 "retval: 0x2 \(2\)" -- run --jit --repeat 2 "$(o spin_lock)" hash_incr
expect 0 "insns executed: [0-9]+" -- run --checked "$(o maps)" use_maps
expect 0 "retval: 0x98 \(152\)" -- run "$(o globals)" globals
# bpf_timer: the run arms a timer; --timers lets 100 us pass on a manual clock, and the
# callback runs three times (it re-arms itself twice)
expect 0 "timers: 3 callbacks ran in 100000 ns, 0 still armed" -- run "$(o timer)" arm --timers 100000
expect 0 "timers: 1 callback ran in 1500 ns, 1 still armed" -- run --jit "$(o timer)" arm --timers 1500
expect 2 "--timers goes with a BPF object" -- run --timers 5 "$(o timer)x"
expect 0 "retval: 0xbe \(190\)" -- run "$(o globals)" globals --repeat 3
expect 0 "retval: 0x2a \(42\)" -- run --checked "$(o kfunc_weak)"
# Linux 6.12's common kfuncs are the command's too: verified, and run on all three engines
expect 0 "kern_ctx: safe as sched_cls" -- verify "$(o kfunc_casts)"
head -c 14 /dev/zero >"$tmp/eth.bin"  # checked runs take the memory as given: a packet for the context
for mode in "" --checked --jit; do
  expect 0 "retval: 0x7 \(7\)" -- run $mode --packet "$tmp/eth.bin" "$(o kfunc_casts)" kern_ctx
done
# without --packet: unchecked, the default packet's context; checked, none (R1 = NULL, which
# the cast returns: 3), as the help says (it said every object's program got a context)
expect 0 "retval: 0x7 \(7\)" -- run "$(o kfunc_casts)" kern_ctx
expect 0 "retval: 0x3 \(3\)" -- run --checked "$(o kfunc_casts)" kern_ctx
expect 0 "^Unchecked, an object's program gets a context" -- run --help
expect 0 "without --mem, --ctx or --packet, R1 is NULL" -- run --help
expect 0 "retval: 0xfa \(250\)" -- run "$(o kconfig)" hz
expect 0 "retval: 0x3e8 \(1000\)" -- run --kconfig CONFIG_HZ=1000 "$(o kconfig)" hz
expect 0 "retval: 0x7 \(7\)" -- run --trusted-unverified "$(o subprogs)" not_autoloaded
# a program of no type the host knows (SEC("my_custom_section")) is not verified: it does
# not load without --trusted-unverified, and verify fails naming it. Running another
# program of the object loads that one only (as libbpf with autoload off for the others)
expect 0 "retval: 0x7 \(7\)" -- run "$(o subprogs)" not_autoloaded
expect 1 "section 'my_custom_section' has no program type on this host: not verified, so not loaded" -- run "$(o subprogs)" unknown_type
expect 1 "unknown_type: no program type \(section 'my_custom_section'\): not verified, refused" -- verify "$(o subprogs)"
expect 0 "unknown_type: no program type \(section 'my_custom_section'\): not verified \(loads with --trusted-unverified\)" -- verify --trusted-unverified "$(o subprogs)"
printf '\x28\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00' >"$tmp/args.bin"
expect 0 "retval: 0x2a \(42\)" -- run --trusted-unverified --ctx "$tmp/args.bin" "$(o struct_ops)" test_calc
# the verifier (tc type) refuses it first, with Linux's message; the checked interpreter
# would stop it too (tests/unit/test_object.c)
expect 1 "write into map forbidden" -- run --checked "$(o globals)" write_rodata
expect 2 "programs loaded: name one" -- run --trusted-unverified "$(o subprogs)"
expect 1 "no program 'nope'" -- run --trusted-unverified "$(o subprogs)" nope
expect 2 "PROG goes with a BPF object" -- run "$tmp/args.bin" prog

# --- tail calls (PROG_ARRAY filled by .values) and the JIT ---
# a struct __sk_buff (192 bytes) with cb[0] (offset 48) = 5, and one with cb[0] = 0
{ head -c 48 /dev/zero; printf '\x05'; head -c 143 /dev/zero; } >"$tmp/n5.bin"
head -c 192 /dev/zero >"$tmp/zero.bin"
expect 0 "slot 1: program 'step1'" -- map dump "$(o tail_call)" jmp_table
expect 0 "call bpf_tail_call#12" -- prog dump "$(o tail_call)" entry
for mode in "" --jit --checked; do
  expect 0 "retval: 0x1e \(30\)" -- run $mode --ctx "$tmp/n5.bin" "$(o tail_call)" entry
  expect 0 "retval: 0x22 \(34\)" -- run $mode --ctx "$tmp/zero.bin" "$(o tail_call)" again
done
expect 0 "retval: 0x70 \(112\)" -- run --jit "$(o maps)" use_maps
expect 0 "retval: 0x98 \(152\)" -- run --jit "$(o globals)" globals
expect 0 "runs, JIT\)" -- run --jit --repeat 3 "$(o globals)" globals
expect 0 "retval: 0x2a \(42\)" -- run --trusted-unverified --jit --ctx "$tmp/args.bin" "$(o struct_ops)" test_calc
expect 2 "--jited goes with 'dump'" -- prog list --jited "$(o maps)"
expect 2 "exclude each other" -- prog dump --raw --jited "$(o maps)"
expect 0 "[0-9]+ bytes of x86-64 code" -- prog dump --jited "$(o tail_call)" entry
# BPF instructions and, under each, its x86-64 code, in program order
out=$("$kbpf" prog dump --jited "$(o tail_call)" entry 2>&1)
order=("; prologue" "endbr64" "push rbp" "^ +0: \(61\) r2 = \*\(u32 \*\)\(r1 \+48\)" "mov esi, dword ptr \[rdi \+ 0x30\]"
       "^ +1: \(63\) \*\(u32 \*\)\(r1 \+52\) = r2" "mov dword ptr \[rdi \+ 0x34\], esi"
       "^ +5: \(85\) call bpf_tail_call#12" "call (rax|0x[0-9a-f]+)" "^ +7: \(95\) exit" "ret$")
last=0
for pat in "${order[@]}"; do
  n=$(grep -nE -- "$pat" <<<"$out" | awk -F: -v l="$last" '$1 > l { print $1; exit }')
  if [ -z "$n" ]; then bad "prog dump --jited: /$pat/ missing or out of order"; last=999999; break; fi
  last=$n
done
[ "$last" != 999999 ] && ok
out=$("$kbpf" prog dump --jited "$(o subprogs)" calls_nested 2>&1)
if grep -q "^int nested(int x):" <<<"$out" && grep -q "inc r12d" <<<"$out" && grep -q "call 0x" <<<"$out"; then ok
else bad "prog dump --jited: subprograms with their code"; fi

# --- bad objects and hosts: one clear line, exit 1 ---
expect 1 "extern \(kconfig\) 'CONFIG_KBPF_STRONG_MISSING'" -- run "$(o kconfig_strong)"
expect 1 "extern \(func ksym\) 'kbpf_test_strong_kfunc'" -- run "$(o kfunc_weak)" strong_kfunc
expect 1 "map 'odd': unknown field 'frobnicate'" -- prog list "$(o bad_map_field)"
expect 1 "multi-level inner maps not supported" -- map dump "$(o bad_inner_map)"
expect 1 "map 'devmap': cannot create it" -- run "$(o unsupported_map)"
expect 1 "cannot open" -- prog list "$tmp/does-not-exist.o"
expect 1 "not an ELF object" -- prog list "$tmp/args.bin"
head -c 700 "$(o maps)" >"$tmp/truncated.o"
expect 1 "truncated.o: " -- prog list "$tmp/truncated.o"
expect 1 "cannot open $tmp/nope: No such file" -- prog list --host "$tmp/nope" "$(o maps)"
# a file that is neither ELF nor BTF: one line saying so (libbpf's warning came first,
# then "Unknown error 4001", libbpf's LIBBPF_ERRNO__FORMAT taken for an errno)
printf 'not btf\n' >"$tmp/text.btf"
expect_error 1 "^kbpf prog: $tmp/text.btf: neither an ELF file nor raw BTF$" -- prog list --host "$tmp/text.btf" "$(o maps)"

finish
