#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tcp.scripts: every scripted-peer script (tests/tcp-scripts/*.script, docs/tcp-sim.md
# "Scripted peer") through `kbpf tcp-sim --script`, as a user runs it:
#  - on the native CC its name starts with (cubic-, reno-, dctcp-, bbr-): must pass;
#  - on the BPF forwarder examples/tcp/tcp_fwd_<cc>.bpf.c (every member a kfunc call
#    into the native code), on the interpreter and on the JIT: must pass;
#  - the cubic scripts on Linux 6.1's selftest bpf_cubic.o (built from linux-source-6.1
#    by scripts/linux-tcp-objects): its failed assertions, on the interpreter and the JIT,
#    must be exactly the rows of the table in docs/tcp-sim.md between the
#    "bpf_cubic-differences" markers (measured differences, written down).
# usage: run.sh KBPF BPF_OBJECT_DIR CLANG OBJECT_CACHE
set -u
kbpf=$1 bpf=$2 clang=$3 cache=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
doc=$root/docs/tcp-sim.md
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

jits="--no-jit"
case $(uname -m) in x86_64|amd64) jits="--no-jit --jit" ;; esac

run() { # SCRIPT CC [options]: must pass
	local s=$1 cc=$2 out
	shift 2
	if out=$("$kbpf" tcp-sim --script "$s" --cc "$cc" "$@" 2>&1); then
		ok
	else
		bad "$(basename "$s") on $(basename "$cc") $*"
		echo "$out" | sed 's/^/    /'
	fi
}

for s in "$here"/*.script; do
	name=$(basename "$s" .script)
	cc=${name%%-*}
	run "$s" "$cc"
	if [ -f "$bpf/tcp_fwd_$cc.bpf.o" ]; then
		for j in $jits; do
			run "$s" "$bpf/tcp_fwd_$cc.bpf.o" "$j"
		done
	else
		echo "SKIP: $bpf/tcp_fwd_$cc.bpf.o not built (clang): forwarder runs of $name skipped"
	fi
done

# --- the mode itself: a failed assertion fails the command and names line, field, values;
# a script asking for what was never sent cannot run ---
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'mss 1000\n0.1 connect rtt=100ms\n+0 write 10000\n+0.1 ack 2001\n+0 expect cwnd=13 ca_state=open\n' >"$tmp/f.script"
out=$("$kbpf" tcp-sim --script "$tmp/f.script" --cc reno 2>&1) && bad "a failed assertion exited 0"
echo "$out" | grep -q "f.script:5: cwnd: expected 13, got 12" && ok || bad "failure message: $out"
printf 'mss 1000\n0.1 connect rtt=100ms\n+0 write 5000\n+0.1 ack 9001\n' >"$tmp/g.script"
out=$("$kbpf" tcp-sim --script "$tmp/g.script" --cc reno 2>&1) && bad "an ACK beyond snd_nxt was accepted"
echo "$out" | grep -q "g.script:4: ack 9001 is beyond snd_nxt 5001" && ok || bad "beyond-snd_nxt message: $out"
printf 'mss 1000\nsack off\n' >"$tmp/h.script"
out=$("$kbpf" tcp-sim --script "$tmp/h.script" --cc reno 2>&1) && bad "sack off was accepted"
echo "$out" | grep -q "h.script:2: sack off" && ok || bad "sack off message: $out"

# --- bpf_cubic.o: its differences from native cubic, as documented ---
rc=0
"$root/scripts/linux-tcp-objects" "$cache" --only bpf_cubic --kbpf "$kbpf" --clang "$clang" --quiet || rc=$?
if [ $rc = 0 ] && [ -f "$cache/bpf_cubic.o" ]; then
	want=$(sed -n '/<!-- bpf_cubic-differences begin -->/,/<!-- bpf_cubic-differences end -->/p' "$doc" |
		grep '^| cubic-' | sed 's/ *| */|/g')
	for j in $jits; do
		got=""
		for s in "$here"/cubic-*.script; do
			out=$("$kbpf" tcp-sim --script "$s" --cc "$cache/bpf_cubic.o" --keep-going --quiet "$j" 2>&1)
			# "PATH:LINE: FIELD: expected X, got Y" → "|script|LINE|FIELD|X|Y|"
			rows=$(echo "$out" | sed -n 's#^.*/\([^/:]*\)\.script:\([0-9]*\): \([a-z_]*\): expected \([^,]*\), got \(.*\)$#|\1|\2|\3|\4|\5|#p')
			if echo "$out" | grep -v ': expected .*, got ' | grep -q .; then
				bad "bpf_cubic.o $j on $(basename "$s"): not a clean run"
				echo "$out" | sed 's/^/    /'
			fi
			[ -n "$rows" ] && got="$got$rows"$'\n'
		done
		got=$(printf '%s' "$got" | sed '/^$/d')
		if [ "$got" = "$want" ]; then
			ok
		else
			bad "bpf_cubic.o ($j): its differences from native cubic are not the ones docs/tcp-sim.md lists"
			diff <(echo "$want") <(echo "$got") | sed 's/^/    /'
		fi
	done
elif [ $rc = 77 ] || [ $rc = 0 ]; then
	echo "SKIP: bpf_cubic.o could not be built here (linux-source-6.1, clang or libbpf-dev missing)"
else
	bad "scripts/linux-tcp-objects failed ($rc)"
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
