#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Build kbpf-bench in its own Release tree, run it, and write docs/performance.md.
#
# usage: bench/run.sh [kbpf-bench options...]      e.g.  bench/run.sh --rounds 9
# env:   BUILD_DIR  build tree (default: build-bench; a separate tree so that a
#                   sanitizer or Debug configuration of ./build never leaks into numbers)
#        OUT        the Markdown file to write (default: docs/performance.md)
#
# The document is only replaced when every engine agreed on every program's result.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-bench}
out=${OUT:-$root/docs/performance.md}

# Sampled before the build and run, which would otherwise count itself.
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DKBPF_SANITIZE=OFF \
	-DKBPF_BUILD_TESTS=OFF -DKBPF_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target kbpf-bench -j"$(nproc 2>/dev/null || echo 2)" >/dev/null

table=$(mktemp)
trap 'rm -f "$table"' EXIT
status=0
"$build/bench/kbpf-bench" --format md "$@" >"$table" || status=$?
cat "$table"
if [ "$status" -ne 0 ]; then
	echo "run.sh: kbpf-bench failed (exit $status); $out left unchanged" >&2
	exit "$status"
fi

# The TCP simulator's section (bench/tcp_bpf_cc.c): a BPF congestion control's cost, Linux's
# own bpf_cubic.o and bpf_dctcp.o (scripts/linux-tcp-objects, from linux-source-6.1) on the
# interpreter and the JIT against the native CC, on issue 8's run. Skipped (with a line
# saying why) when the objects or the bench cannot be built here.
tcp=$(mktemp)
trap 'rm -f "$table" "$tcp"' EXIT
{
	echo
	echo "## TCP simulator: BPF congestion controls"
	echo
	echo "Issue 8's run: 30 s of one flow at 20 Mbit/s, 40 ms RTT (seed 1), simulated with the CC"
	echo "named natively, then with Linux's selftest object (compiled unchanged from linux-source-6.1"
	echo "by \`scripts/linux-tcp-objects\`) on kbpf's interpreter and JIT; wall time per run, best of"
	echo "the runs (the three interleaved), and the speed-up over real time. Each cell: wall / thread"
	echo "CPU time (the CPU time is the steadier figure on a loaded machine; on an idle one they agree)."
	echo "Goal: the BPF CC on the JIT ≤ 0.3 s and ≤ 1.2× native."
	echo "Command: \`build-bench/bench/kbpf-bench-tcp-bpf --md OBJ MAP NATIVE 20\`."
	echo
	if cmake --build "$build" --target kbpf-bench-tcp-bpf -j"$(nproc 2>/dev/null || echo 2)" >/dev/null 2>&1 &&
	   "$root/scripts/linux-tcp-objects" "$build/linux-tcp-objects" --only bpf_cubic,bpf_dctcp --quiet >/dev/null 2>&1; then
		echo "| object (map) | native CC | native, wall / CPU (× real time) | BPF interpreter | BPF JIT | interp/native, wall / CPU | JIT/native, wall / CPU | runs |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|"
		for cc in cubic dctcp; do
			"$build/bench/kbpf-bench-tcp-bpf" --md "$build/linux-tcp-objects/bpf_$cc.o" "$cc" "$cc" 20 ||
				echo "| bpf_$cc.o | $cc | failed | | | | | |"
		done
	else
		echo "(not measured: kbpf-bench-tcp-bpf or Linux's objects could not be built here)"
	fi
} >"$tcp"
cat "$tcp"

# The hardening options' cost (bench/harden.c, docs/reliability.md "Hardening"): each
# program per engine plain and with each option, ns per run and the ratio to plain.
harden=$(mktemp)
trap 'rm -f "$table" "$tcp" "$harden"' EXIT
{
	echo
	echo "## Hardening options"
	echo
	echo "What each option of docs/reliability.md's *Hardening* costs per run: every program"
	echo "created once per configuration and run through \`kbpf_prog_run()\`, rounds of the"
	echo "configurations interleaved, best of 41 rounds of ≥ 2 ms of the thread's CPU time each (so"
	echo "that other jobs on the machine weigh little); in brackets the ratio to the same engine"
	echo "without options. *budget* is a run budget of 2^40 (never reached: the cost measured is"
	echo "the counting), *guard* the stack guard, *blind* JIT constant blinding, *all* the three."
	echo "Command: \`build-bench/bench/kbpf-bench-harden --rounds 41 --round-ms 2\`."
	echo
	if cmake --build "$build" --target kbpf-bench-harden -j"$(nproc 2>/dev/null || echo 2)" >/dev/null 2>&1; then
		"$build/bench/kbpf-bench-harden" --rounds 41 --round-ms 2 ||
			echo "(kbpf-bench-harden failed: a configuration did not return the interpreter's result)"
	else
		echo "(not measured: kbpf-bench-harden could not be built here)"
	fi
} >"$harden"
cat "$harden"

# Verification speed (bench/verify_bench.c): kbpf's verifier beside the live kernel's on the
# benchmark programs and Linux's bpf_cubic.o / bpf_dctcp.o (issue 17, item 6).
verify=$(mktemp)
trap 'rm -f "$table" "$tcp" "$harden" "$verify"' EXIT
{
	echo
	echo "## Verification speed"
	echo
	echo "kbpf's verifier against the running kernel's, program by program: kbpf's time is"
	echo "\`kbpf_prog_verify()\` on the object's linked, relocated instructions (a host with Linux's and"
	echo "the TCP host's types and the bench's own BTF, as \`kbpf verify\` has), the kernel's is the"
	echo "\"verification time\" its log prints at level 4 when libbpf loads the same object (as veristat"
	echo "does; without root the Linux columns are absent); the least of 20 rounds each, µs. The first"
	echo "row, the smallest program (\`r0 = 0; exit\`), is each verifier's fixed cost per program."
	echo "\"processed\" is each verifier's own count of instructions walked. Goal (issue 17): every"
	echo "program in at most Linux's time and processed count, a fixed cost under 20 µs."
	echo "Command: \`build-bench/bench/kbpf-bench-verify --rounds 20 OBJ...\`."
	echo
	objs=$(ls "$build"/bench/programs/*.bpf.o 2>/dev/null | grep -v '/empty\.' || true)
	if cmake --build "$build" --target kbpf-bench-verify -j"$(nproc 2>/dev/null || echo 2)" >/dev/null 2>&1; then
		"$root/scripts/linux-tcp-objects" "$build/linux-tcp-objects" --only bpf_cubic,bpf_dctcp --quiet >/dev/null 2>&1 &&
			objs="$objs $build/linux-tcp-objects/bpf_cubic.o $build/linux-tcp-objects/bpf_dctcp.o"
		# shellcheck disable=SC2086
		"$build/bench/kbpf-bench-verify" --rounds 20 $objs 2>/dev/null | sed -n '/^|/,$p' ||
			echo "(kbpf-bench-verify failed)"
	else
		echo "(not measured: kbpf-bench-verify could not be built here)"
	fi
} >"$verify"
cat "$verify"

first_line() { "$@" 2>/dev/null | head -n 1 || true; }
cpu=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
[ -n "$cpu" ] || cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
ncpu=$(nproc 2>/dev/null || echo '?')
kernel=$(uname -sr)
# The native column's compiler is whatever CMake picked for the project.
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" | head -n 1)
cc_version=$(first_line "${cc:-cc}" --version)
clang_version=$(first_line clang --version)
jit=$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null || echo '?')
rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'uncommitted tree')
date=$(date -u '+%Y-%m-%d %H:%M UTC')
cmd="bench/run.sh${*:+ $*}"

mkdir -p "$(dirname "$out")"
{
	cat <<'EOF'
<!-- SPDX-License-Identifier: Apache-2.0 -->
<!-- Generated by bench/run.sh: edit the script, not this file. -->
# Performance

How fast kbpf's interpreter runs the benchmark programs of `bench/programs/`, against the
same C compiled natively (gcc and clang at `-O2`) and, when the machine allows it,
against Linux's own BPF JIT. What each program does, and how the numbers are taken, is
in [bench/README.md](../bench/README.md).

Every program is one C file compiled twice: `clang -O2 -target bpf -mcpu=v3` for the BPF
engines (kbpf gets the raw instructions of its `socket` section), and natively for the
reference columns. All engines must return the same value; `kbpf-bench` says MISMATCH
otherwise and this page is not regenerated.

- **BPF insns/run**: instructions executed per run, counted by kbpf's checked mode.
- **kbpf interp ns/run**: `kbpf_prog_run()` (the fast, unchecked mode) on a 64-byte
  context, best of 5 rounds of at least 20 ms each (the defaults; see the command), timed
  in the thread's CPU time (`--clock cpu`, the default), like every kbpf and native
  column: on a shared machine wall time also counts other jobs' time slices, which
  Linux's column never includes (below).
- **interp ns/insn**: the two columns above divided: the interpreter's cost per
  executed instruction, dispatch included.
- **kbpf JIT ns/run**: the same, JIT-compiled to x86-64 (docs/jit.md); **JIT/Linux**
  (two decimals), **JIT/gcc**, **JIT/clang**: its ratio to Linux's JIT and to native
  code (below 1.0x: kbpf's JIT is faster). The JIT's compile time is noted below the table, and so is the
  time to open and load (link, relocate, verify, create) the largest of the tests' own
  BPF objects (`tests/bpf`) on a host with Linux's program types, with and without the
  JIT.
- **JIT fn ns/run**, **fn/gcc**: the same JIT code called through the native function
  `kbpf_prog_jited_func()` returns (Linux's `bpf_func`), without `kbpf_prog_run()`'s
  NULL check and jump, and its ratio to gcc (both are one call level: docs/jit.md,
  *Entries*).
- **Linux JIT ns/run**: the same instructions loaded through `bpf(BPF_PROG_LOAD)` as a
  socket filter, three times (each load lies at its own random offset in the kernel's
  JIT memory), and run with `BPF_PROG_TEST_RUN`, timed in the thread's CPU time around
  the call like every other column; its rounds alternate with the kbpf JIT's, and the
  best round over the three loads is the figure (bench/README.md says why; the
  kernel's own `duration` agrees within 0.3%).
- **gcc/clang -O2 ns/run**: the C compiled natively, best of 5 rounds of ~50 ms of CPU time;
  **interp/gcc**, **interp/clang**: how many times slower the interpreter is.

The *empty* row is each engine's fixed cost of one invocation: for kbpf the
`kbpf_prog_run()` call (and, in *JIT fn*, a call of the native function), for Linux
`BPF_PROG_TEST_RUN`'s per-iteration bookkeeping (which is also inside every other Linux
number), for native code a plain call.

The numbers come from one run on one machine. On a shared VM they move between runs
(up to about ±30% for a single cell was seen on the machine below while other jobs
ran; the load average before the run is recorded); read the order of magnitude, the
ns/insn column and the ratios, not the last digit. `--rounds 9` steadies the best round.
Why kbpf's JIT is as fast as it is, and where its code still differs from Linux's:
[jit.md](jit.md#speed).

**uBPF, quoted, not measured.** uBPF is not packaged here, so it is not a column. The
yardstick the benchmark issue gives for uBPF's interpreter on these machines is
**8–12 ns per executed instruction**; compare it with the *interp ns/insn* column.

EOF
	echo "## Results"
	echo
	echo "- date: $date"
	echo "- machine: $cpu, $ncpu CPUs; $kernel (net.core.bpf_jit_enable=$jit); load average before the run: $load"
	echo "- compilers: $cc_version; $clang_version"
	echo "- source: $rev"
	echo "- command: \`$cmd\` (runs \`kbpf-bench --format md${*:+ $*}\` from a Release build)"
	echo
	cat "$table"
	cat "$tcp"
	cat "$harden"
	cat "$verify"
} >"$out"
echo "run.sh: wrote $out" >&2
