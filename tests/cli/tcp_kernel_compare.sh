#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/tcp-kernel-compare without a kernel run (those need root, namespaces and TUN):
# its argument checking (usage errors exit 2 with one line) and --reuse DIR, which only
# reads the kernel results an earlier --out DIR kept and runs kbpf, so needs no root. As
# root the script runs as nobody (setpriv), so that the root check is exercised too; and
# as root, its link emulator (tools/tcp-oracle/tunlink) in a network namespace.
# usage: tcp_kernel_compare.sh KBPF SOURCE_DIR
kbpf=$1
script=$2/scripts/tcp-kernel-compare
. "$(dirname "$0")/lib.sh"
chmod 755 "$tmp"

as_user=()
if [ "$(id -u)" = 0 ]; then
  # nobody must reach the script and kbpf: a clone in a private directory (mktemp -d's
  # 0700) is out of its reach, and the script then runs as root
  if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$script" -a -x "$kbpf" 2>/dev/null; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
  else
    echo "setpriv cannot drop root here, or nobody cannot reach $script: the script runs as root"
  fi
fi

# script CODE PATTERN -- ARGS...: the script exits CODE; PATTERN in its output; a usage
# error (2) is one line on stderr and nothing on stdout.
script() {
  local code=$1 pat=$2 out rc
  shift 3
  out=$("${as_user[@]}" "$script" "$@" 2>"$tmp/stderr")
  rc=$?
  if [ "$rc" != "$code" ]; then
    bad "tcp-kernel-compare $* exited $rc, expected $code: $out$(cat "$tmp/stderr")"
  elif ! grep -Eq -- "$pat" <<<"$out$(cat "$tmp/stderr")"; then
    bad "tcp-kernel-compare $* output lacks /$pat/: $out$(cat "$tmp/stderr")"
  elif [ "$code" = 2 ] && { [ -n "$out" ] || [ "$(wc -l <"$tmp/stderr")" != 1 ]; }; then
    bad "tcp-kernel-compare $*: a usage error should be one line on stderr: $out$(cat "$tmp/stderr")"
  else
    ok
  fi
}

script 0 "usage: scripts/tcp-kernel-compare" -- --help
# too few arguments: the usage text, on stderr
"${as_user[@]}" "$script" reno 10 >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [ "$rc" = 2 ] && [ ! -s "$tmp/stdout" ] && grep -q "CC RATE_MBIT DELAY_MS" "$tmp/stderr"; then ok; else
  bad "tcp-kernel-compare reno 10: exit $rc, expected 2 and the usage on stderr"; fi
script 2 "unknown option --nope" -- --nope reno 10 5
for bad_runs in abc 0 -1 1.5 ""; do
  script 2 "--runs takes a whole number above 0, not '$bad_runs'" -- --runs "$bad_runs" reno 10 5
done
script 2 "--secs takes a whole number above 0, not 'x'" -- --secs x reno 10 5
script 2 "--runs needs a value" -- --runs
script 2 "--kbpf-runs takes a whole number above 0, not '0'" -- --kbpf-runs 0 reno 10 5
script 2 "--kbpf-runs takes a whole number above 0, not ''" -- --kbpf-runs "" reno 10 5
script 2 "--reorder takes PROB,DELAY_US" -- --reorder 0.01 reno 10 5
script 2 "--reorder takes PROB,DELAY_US" -- --reorder 2,4000 reno 10 5
# tunlink -o and kbpf --reorder take at most 10 s: refused here, not by tunlink in the first kernel run
script 2 "--reorder takes PROB,DELAY_US \(PROB from 0 to 1, DELAY_US a whole number from 1 to 10000000\)" -- --dry-run --reorder 0.01,10000001 reno 10 5
script 0 "--reorder 0.01,10000000us" -- --dry-run --reorder 0.01,10000000 reno 10 5
script 0 "reordering 0.01,4000 \(tunlink -o 0.01,4000\)" -- --dry-run --reorder 0.01,4000 bbr 100 5
# --jitter: checked before any run (kbpf refused it only after the kernel's runs; --dry-run printed it)
script 2 "--jitter takes a time of at most 10 ms \(e.g. 40us, 0\), not '40 us'" -- --dry-run --jitter "40 us" reno 10 5
script 2 "--jitter takes a time of at most 10 ms" -- --dry-run --jitter 11ms reno 10 5
script 2 "--jitter takes a time of at most 10 ms" -- --dry-run --jitter 1s reno 10 5
script 2 "--jitter takes a time of at most 10 ms" -- --dry-run --jitter "" reno 10 5
script 0 "kbpf tcp-sim .* --jitter 10ms " -- --dry-run --jitter 10ms reno 10 5
script 0 "kbpf tcp-sim .* --jitter 0 " -- --dry-run --jitter 0 reno 10 5
script 0 "kbpf tcp-sim .* --jitter 500ns " -- --dry-run --jitter 500ns reno 10 5
script 0 "kbpf tcp-sim .* --jitter 2.5 " -- --dry-run --jitter 2.5 reno 10 5
script 0 "--reorder 0.01,4000us" -- --dry-run --reorder 0.01,4000 bbr 100 5

# --reuse DIR: the kernel's results of two runs as an earlier --out DIR keeps them
dir=$tmp/reuse
mkdir -p "$dir"
for r in 1 2; do
  echo "cc=reno secs=1.00 goodput_mbit=9.$r total_retrans=$r delivered=900 delivered_ce=0" >"$dir/k$r.sum"
  echo "fwd=1000 rev=500 qdrop=2 rdrop=0 ce_marks=0 maxq=20" >"$dir/k$r.link"
  printf 't_us cwnd ssthresh\n1000 10 2147483647\n2000 20 2147483647\n3000 30 15\n' >"$dir/k$r.tsv"
  printf '0.5 %d\n0.6 4\n0.7 6\n' "$r" >"$dir/k$r.q"
done
chmod -R a+rwX "$dir"
script 0 "goodput \(Mbit/s\) +9\.15 " -- --reuse "$dir" --runs 2 --secs 1 --kbpf "$kbpf" reno 10 5
script 0 "cwnd at first reduction +20 " -- --reuse "$dir" --runs 2 --secs 1 --kbpf "$kbpf" reno 10 5
script 0 "^\| reno \| 10 \| 5 \| 0 \| 0/16 \| 9\.15 / " -- --reuse "$dir" --runs 2 --secs 1 --md --kbpf "$kbpf" reno 10 5
script 1 "no kernel run 3 in $dir" -- --reuse "$dir" --runs 3 --secs 1 --kbpf "$kbpf" reno 10 5
# kbpf's receivers compress SACKs as the kernel's do by default; --no-sack-compress: not
script 0 "kbpf tcp-sim .* --sack-compress --seed N" -- --dry-run reno 10 5
script 0 "kbpf tcp-sim .* --jitter 40us --seed N" -- --dry-run --no-sack-compress reno 10 5
# --detail: kbpf's entries into Recovery as the kernel's TCPSackRecovery counts them, beside
# the episodes its per-ACK trace shows
script 0 "kbpf seed 1: retransmitted segments [0-9]+; SACK recoveries [0-9]+ \(episodes in the per-ACK trace [0-9]+\)" -- \
  --reuse "$dir" --runs 2 --secs 1 --detail --kbpf "$kbpf" reno 10 5
# --kbpf-runs M: kbpf's side over seeds 1..M whatever the kernel runs; --detail's spread line
script 0 "\| 2 / 5 × 1 s \|" -- --reuse "$dir" --runs 2 --kbpf-runs 5 --secs 1 --md --kbpf "$kbpf" reno 10 5 0.05
script 0 "# spread: goodput kernel sd 0\.07071, se 0\.05 / kbpf sd" -- --reuse "$dir" --runs 2 --kbpf-runs 5 --secs 1 --detail --kbpf "$kbpf" reno 10 5 0.05
# Both sides' queue over the same part of the flow: the emulator's log starts some 0.1-0.7 s
# before the kernel's SYN, which its -l log dates (the first millisecond with 1000 bytes or
# more is the first data, one RTT after the SYN); the window is [SYN + 0.5 s, SYN + secs].
# Here the SYN is at 0.300 s: the samples before 0.8 s (99 packets) are not the flow's steady
# state, those after 1.3 s (77) are past its end. It took [0.5, secs] of the emulator's clock.
dir2=$tmp/reuse2
mkdir -p "$dir2"
for r in 1 2; do
  cp "$dir/k$r.sum" "$dir/k$r.link" "$dir/k$r.tsv" "$dir2/"
  printf 't_s ab_bytes ab_late_us ba_late_us wake_late_us\n0.100 48 0 0 0\n0.300 60 0 0 0\n0.311 4500 0 0 0\n0.312 3000 0 0 0\n' >"$dir2/k$r.stat"
  awk 'BEGIN { for (t = 0.001; t < 1.8; t += 0.001) printf "%.3f %d\n", t, t < 0.8 ? 99 : t <= 1.3 ? 5 : 77 }' >"$dir2/k$r.q"
done
chmod -R a+rwX "$dir2"
script 0 "queue p99 +5 " -- --reuse "$dir2" --runs 2 --secs 1 --kbpf "$kbpf" reno 10 5
script 0 "queue p5 \(packets\) +5 " -- --reuse "$dir2" --runs 2 --secs 1 --kbpf "$kbpf" reno 10 5
# kbpf's queue is sampled every 1 ms by the simulator (--queue-log), not held between ACKs
if [ -s "$dir2/s1.q" ] && [ "$(wc -l <"$dir2/s1.q")" = 1000 ]; then ok
else bad "kbpf's queue log $dir2/s1.q: $(head -3 "$dir2/s1.q" 2>&1)"; fi

# The oracle's tools refuse malformed numbers (they took atof/atoi's 0 before): a usage error,
# one line, exit 2, before any TUN device or socket is touched (so no root needed).
if command -v "${CC:-cc}" >/dev/null; then
  "${CC:-cc}" -O2 -Wall -o "$tmp/tunlink" "$2/tools/tcp-oracle/tunlink.c" || bad "tunlink does not build"
  "${CC:-cc}" -O2 -Wall -pthread -o "$tmp/bulk" "$2/tools/tcp-oracle/bulk.c" || bad "bulk does not build"
  usage() { # PATTERN -- COMMAND...: exits 2 with one line on stderr matching PATTERN
    local pat=$1 rc
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$pat" "$tmp/err"; then ok
    else bad "$* exited $rc: $(cat "$tmp/out" "$tmp/err")"; fi
  }
  usage "rate_mbit must be a number from 0.001 to 100000, not '10x'" -- "$tmp/tunlink" tA tB 10x 1 20 0 0 1
  usage "loss_prob must be a number from 0 to 1, not '2'" -- "$tmp/tunlink" tA tB 10 1 20 2 0 1
  usage "qlimit_pkts must be a whole number" -- "$tmp/tunlink" tA tB 10 1 2.5 0 0 1
  usage "secs must be a number" -- "$tmp/tunlink" tA tB 10 1 20 0 0 ''
  usage "-s SPIN_US must be a number" -- "$tmp/tunlink" -s nan tA tB 10 1 20 0 0 1
  usage "IP must be an IPv4 address, not '1.2.3'" -- "$tmp/bulk" client 1.2.3 5001 cubic 1 1000 "$tmp/x"
  usage "SAMPLE_US must be a number from 1" -- "$tmp/bulk" client 10.0.0.1 5001 cubic 1 0 "$tmp/x"
  usage "PORT must be a number from 1 to 65535, not '70000'" -- "$tmp/bulk" server 70000
  usage "-o takes PROB,DELAY_US, not '0.01'" -- "$tmp/tunlink" -o 0.01 tA tB 10 1 20 0 0 1
  usage "-o DELAY_US must be a number from 1" -- "$tmp/tunlink" -o 0.01,0 tA tB 10 1 20 0 0 1
  usage "-r SEED must be a whole number from 0 to 18446744073709551615, not '1x'" -- "$tmp/tunlink" -r 1x tA tB 10 1 20 0 0 1
  usage "-r SEED must be a whole number" -- "$tmp/tunlink" -r '' tA tB 10 1 20 0 0 1
  usage "-r SEED must be a whole number" -- "$tmp/tunlink" -r -3 tA tB 10 1 20 0 0 1
else
  echo "tunlink/bulk argument checks: no C compiler: skipped"
fi

# cubic whose slow start HyStart ended between two 1 ms samples (cwnd 50, then 60 with
# ssthresh 58): the kernel's cwnd at the first reduction is HyStart's own, 58 (nstat), not
# the sample before (50); run 2 ended it by a loss (ssthresh 35, not HyStart's 59): its
# sample, 40. --detail gives each side's retransmissions per recovery episode.
dir=$tmp/hystart
mkdir -p "$dir"
hdr='t_us cwnd ssthresh rtt_us rttvar_us ca_state retrans total_retrans'
for r in 1 2; do
  echo "cc=cubic secs=1.00 goodput_mbit=9.5 total_retrans=4 delivered=900 delivered_ce=0" >"$dir/k$r.sum"
  echo "fwd=1000 rev=500 qdrop=4 rdrop=0 ce_marks=0 maxq=20" >"$dir/k$r.link"
  printf '0.5 1\n0.6 4\n' >"$dir/k$r.q"
done
{ echo "$hdr"; printf '%s\n' '1000 30 2147483647 4000 0 0 0 0' '2000 50 2147483647 4000 0 0 0 0' \
  '3000 60 58 4000 0 0 0 0' '4000 62 58 4000 0 0 0 0' '5000 45 43 4000 0 3 1 1' '6000 44 43 4000 0 3 0 2' \
  '7000 44 43 4000 0 0 0 2' '8000 50 43 4000 0 3 1 3' '9000 50 43 4000 0 0 0 3' '10000 51 43 4000 0 0 0 4'; } >"$dir/k1.tsv"
{ echo "$hdr"; printf '%s\n' '1000 30 2147483647 4000 0 0 0 0' '2000 40 2147483647 4000 0 0 0 0' \
  '3000 36 35 4000 0 3 4 4' '4000 35 35 4000 0 0 0 4'; } >"$dir/k2.tsv"
printf 'TcpExtTCPHystartTrainDetect 1 0.0\nTcpExtTCPHystartTrainCwnd 58 0.0\n' >"$dir/k1.nstatA"
printf 'TcpExtTCPHystartTrainDetect 1 0.0\nTcpExtTCPHystartTrainCwnd 59 0.0\n' >"$dir/k2.nstatA"
chmod -R a+rwX "$dir"
script 0 "cwnd at first reduction +49 " -- --reuse "$dir" --runs 2 --secs 1 --kbpf "$kbpf" cubic 10 5
script 0 "# kernel run 1: 2 recovery episodes \(1 ms samples\): the first retransmitted 2, the later ones 1:1 \(retransmissions:episodes\); 1 retransmission outside them" \
  -- --reuse "$dir" --runs 2 --secs 1 --detail --kbpf "$kbpf" cubic 10 5
script 0 "# kernel run 2: 1 recovery episode \(1 ms samples\): the first retransmitted 4; 0 retransmissions outside them" \
  -- --reuse "$dir" --runs 2 --secs 1 --detail --kbpf "$kbpf" cubic 10 5
script 0 "# kbpf seed 1: [0-9]+ recovery episodes? \(per-ACK trace\)" -- --reuse "$dir" --runs 2 --secs 1 --detail --kbpf "$kbpf" cubic 10 5

# tools/tcp-oracle/tunlink, the script's emulator: the summary's busiest millisecond
# (burst_1ms) without -l too (it was 0.00: only the -l log's intervals counted). Needs root,
# /dev/net/tun and a network namespace of its own; skipped without them.
if [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] && command -v "${CC:-cc}" >/dev/null && unshare -n true 2>/dev/null; then
  "${CC:-cc}" -O2 -o "$tmp/tunlink" "$2/tools/tcp-oracle/tunlink.c" || bad "tunlink does not build"
  # 10 Mbit/s, 100 datagrams of 1028 IP bytes into tA, delivered to tB
  timeout 30 unshare -n bash -c '
    "$1/tunlink" tA tB 10 1 200 0 0 1.5 >"$1/link.out" 2>&1 &
    for _ in $(seq 100); do grep -q ready "$1/link.out" 2>/dev/null && break; sleep 0.05; done
    ip addr add 10.9.0.1 peer 10.9.0.2 dev tA && ip link set tA up && ip link set tB up
    for _ in $(seq 100); do head -c 1000 /dev/zero >/dev/udp/10.9.0.2/9; done
    wait' _ "$tmp"
  if [ "$(sed -n 's/^fwd=\([0-9]*\) .*/\1/p' "$tmp/link.out")" -ge 100 ] 2>/dev/null && grep -Eq "burst_1ms=([1-9]|0\.[0-9]*[1-9])" "$tmp/link.out"; then ok
  else bad "tunlink without -l: $(cat "$tmp/link.out")"; fi
  # -o PROB,DELAY_US: half the datagrams held 2 ms, all delivered
  timeout 30 unshare -n bash -c '
    "$1/tunlink" -o 0.5,2000 tA tB 10 1 200 0 0 1.5 >"$1/link.out" 2>&1 &
    for _ in $(seq 100); do grep -q ready "$1/link.out" 2>/dev/null && break; sleep 0.05; done
    ip addr add 10.9.0.1 peer 10.9.0.2 dev tA && ip link set tA up && ip link set tB up
    for _ in $(seq 100); do head -c 1000 /dev/zero >/dev/udp/10.9.0.2/9; done
    wait' _ "$tmp"
  held=$(sed -n 's/.* reordered=\([0-9]*\).*/\1/p' "$tmp/link.out")
  if [ "$(sed -n 's/^fwd=\([0-9]*\) .*/\1/p' "$tmp/link.out")" -ge 100 ] 2>/dev/null && [ "${held:-0}" -ge 25 ] && [ "$held" -le 75 ]; then ok
  else bad "tunlink -o: $(cat "$tmp/link.out")"; fi
else
  echo "tunlink: needs root, /dev/net/tun, cc and unshare -n: skipped"
fi
finish
