#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/tcp-kernel-compare without a kernel run (those need root, namespaces and TUN):
# its argument checking (usage errors exit 2 with one line) and --reuse DIR, which only
# reads the kernel results an earlier --out DIR kept and runs kbpf, so needs no root. As
# root the script runs as nobody (setpriv), so that the root check is exercised too.
# usage: tcp_kernel_compare.sh KBPF SOURCE_DIR
kbpf=$1
script=$2/scripts/tcp-kernel-compare
. "$(dirname "$0")/lib.sh"
chmod 755 "$tmp"

as_user=()
if [ "$(id -u)" = 0 ]; then
  if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
  else
    echo "setpriv cannot drop root here: the script runs as root"
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
finish
