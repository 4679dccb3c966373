#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `kbpf tcp-sim`, run as a user would run it.
# usage: tcp_sim.sh KBPF_BINARY
set -u
kbpf=$1
. "$(dirname "$0")/lib.sh"

# --- help and usage errors ---
expect 0 "usage: kbpf tcp-sim" -- tcp-sim --help
expect 0 "usage: kbpf tcp-sim" -- help tcp-sim
expect 0 "tcp-sim" -- --help
expect 2 "no flow" -- tcp-sim
expect 2 "unknown congestion control" -- tcp-sim --cc vegas
expect 1 "not yet supported" -- tcp-sim --cc bpf_cubic.o
expect 1 "not yet supported" -- tcp-sim --cc prog.o:cubic_ops
expect 2 "not a rate" -- tcp-sim --cc reno --rate fast
expect 2 "not a delay" -- tcp-sim --cc reno --delay 0
expect 2 "not a probability" -- tcp-sim --cc reno --loss 2
expect 2 "must end in .svg or .png" -- tcp-sim --cc reno --plot out.pdf
expect 2 "unknown or incomplete option" -- tcp-sim --cc reno --frobnicate
expect 2 "quotes are not supported" -- tcp-sim --cc reno --plot "it's.svg"
expect 2 "unexpected argument" -- tcp-sim --cc reno extra

# --- runs ---
expect 0 "^0 +cubic +1[89]\.[0-9]+ Mb/s" -- tcp-sim --cc cubic --duration 10s
expect 0 "Jain fairness index: 0\.9" -- tcp-sim --cc reno --cc reno --duration 20s
expect 0 "dctcp .* yes" -- tcp-sim --cc dctcp --ecn-threshold 20 --duration 5s
expect 0 "CE marks [1-9]" -- tcp-sim --cc reno --ecn --ecn-threshold 20 --duration 5s
expect 0 "drops 0 \(queue\) \+ [1-9][0-9]* \(random\)" -- tcp-sim --cc reno --loss 1% --duration 5s
expect 0 "done at [0-9.]+ s" -- tcp-sim --cc bbr --bytes 10000000 --duration 20s
expect 0 "RTT 10 ms, queue 200 packets" -- tcp-sim --cc cubic --rate 100M --delay 5ms --queue 200 --duration 2s

# --- trace: CSV, one line per ACK, identical for the same seed ---
expect 0 "" -- tcp-sim --cc cubic --cc bbr --loss 0.5% --duration 3s --seed 9 --trace "$tmp/a.csv" --quiet
expect 0 "" -- tcp-sim --cc cubic --cc bbr --loss 0.5% --duration 3s --seed 9 --trace "$tmp/b.csv" --quiet
expect 0 "" -- tcp-sim --cc cubic --cc bbr --loss 0.5% --duration 3s --seed 10 --trace "$tmp/c.csv" --quiet
if head -1 "$tmp/a.csv" | grep -q '^time_s,flow,cwnd,ssthresh,srtt_us,pacing_rate_Bps,inflight,queue_pkts,'; then ok; else bad "trace header"; fi
if [ "$(wc -l <"$tmp/a.csv")" -gt 1000 ]; then ok; else bad "trace too short"; fi
if cmp -s "$tmp/a.csv" "$tmp/b.csv"; then ok; else bad "same seed, different traces"; fi
if ! cmp -s "$tmp/a.csv" "$tmp/c.csv"; then ok; else bad "different seeds, same trace"; fi
if awk -F, 'NR > 1 && $2 != 0 && $2 != 1 { exit 1 }' "$tmp/a.csv"; then ok; else bad "flow ids"; fi
expect 1 "cannot write" -- tcp-sim --cc reno --duration 1s --trace "$tmp/no/such/dir/t.csv"

# --- plot through gnuplot ---
if command -v gnuplot >/dev/null; then
  expect 0 "plot: .*p.svg" -- tcp-sim --cc cubic --cc reno --duration 5s --plot "$tmp/p.svg"
  if grep -q "<svg" "$tmp/p.svg" 2>/dev/null; then ok; else bad "no svg written"; fi
  expect 0 "" -- tcp-sim --cc bbr --duration 2s --plot "$tmp/p.png" --quiet
  if [ -s "$tmp/p.png" ]; then ok; else bad "no png written"; fi
else
  echo "gnuplot not installed: plot tests skipped (scripts/install-deps installs it)"
fi

finish
