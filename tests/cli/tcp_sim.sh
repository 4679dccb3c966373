#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end tests of `kbpf tcp-sim`, run as a user would run it.
# usage: tcp_sim.sh KBPF_BINARY [BPF_OBJECT_DIR]
set -u
kbpf=$1
bpf=${2:-}
. "$(dirname "$0")/lib.sh"

# --- help and usage errors ---
expect 0 "usage: kbpf tcp-sim" -- tcp-sim --help
expect 0 "usage: kbpf tcp-sim" -- help tcp-sim
expect 0 "tcp-sim" -- --help
expect 2 "no flow" -- tcp-sim
expect 2 "unknown congestion control" -- tcp-sim --cc vegas
expect 1 "nosuch.o: .*(No such file|no such file)" -- tcp-sim --cc /nonexistent/nosuch.o
expect 1 "nosuch.o" -- tcp-sim --cc /nonexistent/nosuch.o:cubic_ops
expect 2 "not a rate" -- tcp-sim --cc reno --rate fast
expect 2 "not a delay" -- tcp-sim --cc reno --delay 0
expect 2 "not a probability" -- tcp-sim --cc reno --loss 2
expect 2 "must end in .svg or .png" -- tcp-sim --cc reno --plot out.pdf
expect 2 "unknown or incomplete option" -- tcp-sim --cc reno --frobnicate
expect 2 "quotes are not supported" -- tcp-sim --cc reno --plot "it's.svg"
# a plot that cannot be written is said so before the run (gnuplot's error, on stdout,
# came after it, with "is gnuplot installed?")
expect_error 1 "cannot write $tmp/none/p.svg: No such file or directory" -- tcp-sim --cc reno --plot "$tmp/none/p.svg"
expect 2 "unexpected argument" -- tcp-sim --cc reno extra

# --- runs ---
expect 0 "^0 +cubic +1[89]\.[0-9]+ Mb/s" -- tcp-sim --cc cubic --duration 10s
expect 0 "Jain fairness index: 0\.9" -- tcp-sim --cc reno --cc reno --duration 20s
expect 0 "dctcp .* yes" -- tcp-sim --cc dctcp --ecn-threshold 20 --duration 5s
expect 0 "CE marks [1-9]" -- tcp-sim --cc reno --ecn --ecn-threshold 20 --duration 5s
expect 0 "drops 0 \(queue\) \+ [1-9][0-9]* \(random\)" -- tcp-sim --cc reno --loss 1% --duration 5s
expect 0 "done at [0-9.]+ s" -- tcp-sim --cc bbr --bytes 10000000 --duration 20s
expect 0 "RTT 10 ms, queue 200 packets" -- tcp-sim --cc cubic --rate 100M --delay 5ms --queue 200 --duration 2s

# --- many flows: --cc-mix, --flows, --flow-file (incast), the per-CC summary ---
expect 2 "not NAME:COUNT" -- tcp-sim --cc-mix cubic
expect 2 "count must be a positive number" -- tcp-sim --cc-mix cubic:0
expect 2 "unknown congestion control" -- tcp-sim --cc-mix vegas:3
expect 2 "trailing ','" -- tcp-sim --cc-mix cubic:2,
expect 2 "fewer than the 3 flows given" -- tcp-sim --cc-mix cubic:3 --flows 2
expect 2 "at most 16384 flows" -- tcp-sim --cc-mix cubic:20000
expect 2 "--plot draws at most 64 flows" -- tcp-sim --cc cubic --flows 65 --plot "$tmp/x.svg"
expect 0 "^4 +dctcp .*yes" -- tcp-sim --cc-mix cubic:2,dctcp:3 --ecn-threshold 20 --duration 1s
expect 0 "^5 +cubic " -- tcp-sim --cc reno --cc cubic --flows 6 --duration 1s
# above 64 flows, one line per CC (every flow counted), or every flow with --per-flow
expect 0 "^cubic +600 " -- tcp-sim --cc-mix cubic:600,dctcp:400 --rate 10G --delay 1ms --duration 0.2s
expect 0 "^dctcp +400 " -- tcp-sim --cc-mix cubic:600,dctcp:400 --rate 10G --delay 1ms --duration 0.2s
expect 0 "^99 +reno " -- tcp-sim --cc reno --flows 100 --duration 0.2s --per-flow
printf '# incast: 50 dctcp flows of 64 kB at 10 ms, a long cubic flow\ndctcp 10ms 64k 50\ncubic 0 0\n' >"$tmp/flows.txt"
expect 0 "^50 +cubic .*" -- tcp-sim --flow-file "$tmp/flows.txt" --rate 1G --delay 100us --ecn-threshold 30 --duration 1s
out=$("$kbpf" tcp-sim --flow-file "$tmp/flows.txt" --cc reno --flows 53 --rate 1G --delay 100us --queue 2000 --ecn-threshold 30 --duration 1s 2>&1)
if [ "$(printf '%s\n' "$out" | grep -c ' done at [0-9.]* s')" = 51 ] && printf '%s\n' "$out" | grep -Eq "^52 +dctcp "; then ok
else bad "flow file: 50 incast flows done, then the list repeated: $out"; fi
printf 'cubic soon\n' >"$tmp/bad.txt"
expect 2 "bad.txt:1: 'soon' is not a start time" -- tcp-sim --flow-file "$tmp/bad.txt"
printf 'cubic 0 lots\n' >"$tmp/bad.txt"
expect 2 "bad.txt:1: 'lots' is not a size" -- tcp-sim --flow-file "$tmp/bad.txt"
printf 'cubic 0 0 1 extra\n' >"$tmp/bad.txt"
expect 2 "expected CC \[START" -- tcp-sim --flow-file "$tmp/bad.txt"
printf '# nothing\n' >"$tmp/bad.txt"
expect 2 "no flow" -- tcp-sim --flow-file "$tmp/bad.txt"
expect 1 "No such file" -- tcp-sim --flow-file "$tmp/none.txt"

# --- --tso: Linux's segmentation (bursts, deferral); the default stays one segment at a time ---
expect 0 "^0 +bbr +9[0-9]\.[0-9]+ Mb/s" -- tcp-sim --cc bbr --rate 100M --delay 10ms --duration 3s --tso
expect 0 "" -- tcp-sim --cc dctcp --rate 100M --delay 2ms --ecn-threshold 10 --duration 2s --trace "$tmp/t1.csv" --quiet --tso
expect 0 "" -- tcp-sim --cc dctcp --rate 100M --delay 2ms --ecn-threshold 10 --duration 2s --trace "$tmp/t2.csv" --quiet
if ! cmp -s "$tmp/t1.csv" "$tmp/t2.csv"; then ok; else bad "--tso changed nothing"; fi
expect 0 "^0 +cubic .* done at" -- tcp-sim --cc cubic --rate 1G --delay 5ms --loss 0.1% --bytes 5M --duration 5s --sack-compress --tso

# --- SACK on the wire (default) against --sack-ideal; --gro: stretch ACKs, deterministic ---
expect 2 "--gro: '0' is not a segment count" -- tcp-sim --cc cubic --gro 0
expect 2 "--gro: '65' is not a segment count" -- tcp-sim --cc cubic --gro 65
expect 2 "--gro-window: '2s' is not a time" -- tcp-sim --cc cubic --gro 8 --gro-window 2s
expect 0 "--sack-ideal" -- tcp-sim --help
expect 0 "" -- tcp-sim --cc cubic --rate 100M --delay 2ms --loss 1% --duration 3s --trace "$tmp/s1.csv" --quiet
expect 0 "" -- tcp-sim --cc cubic --rate 100M --delay 2ms --loss 1% --duration 3s --trace "$tmp/s2.csv" --quiet --sack-ideal
if cmp -s "$tmp/s1.csv" "$tmp/s2.csv"; then ok; else bad "SACK on the wire changed an uncompressed trace"; fi
expect 0 "" -- tcp-sim --cc cubic --rate 1G --delay 5ms --loss 0.1% --duration 2s --trace "$tmp/g1.csv" --quiet --gro 8
expect 0 "" -- tcp-sim --cc cubic --rate 1G --delay 5ms --loss 0.1% --duration 2s --trace "$tmp/g2.csv" --quiet --gro 8
if cmp -s "$tmp/g1.csv" "$tmp/g2.csv" && ! cmp -s "$tmp/g1.csv" "$tmp/s1.csv" &&
   [ "$(wc -l <"$tmp/g1.csv")" -lt "$(wc -l <"$tmp/s1.csv")" ]; then ok
else bad "--gro: not deterministic, or no fewer ACKs"; fi
expect 0 "^0 +dctcp .* yes" -- tcp-sim --cc dctcp --ecn-threshold 20 --rate 1G --delay 1ms --duration 1s --gro 16 --gro-window 200us --sack-compress
# --- --fq: sch_fq on the senders' egress (every CC paced by its EDTs, TSQ); same seed, same run ---
expect 0 "--fq +each sender's egress has Linux's sch_fq" -- tcp-sim --help
expect 0 "^0 +cubic +9[0-9]\.[0-9]+ Mb/s" -- tcp-sim --cc cubic --rate 100M --delay 2ms --duration 3s --fq
expect 0 "^0 +bbr +9[0-9]\.[0-9]+ Mb/s" -- tcp-sim --cc bbr --rate 100M --delay 10ms --duration 3s --fq --tso
expect 0 "" -- tcp-sim --cc cubic --cc dctcp --rate 100M --delay 2ms --loss 0.5% --duration 2s --trace "$tmp/f1.csv" --quiet --fq
expect 0 "" -- tcp-sim --cc cubic --cc dctcp --rate 100M --delay 2ms --loss 0.5% --duration 2s --trace "$tmp/f2.csv" --quiet --fq
expect 0 "" -- tcp-sim --cc cubic --cc dctcp --rate 100M --delay 2ms --loss 0.5% --duration 2s --trace "$tmp/f3.csv" --quiet
if cmp -s "$tmp/f1.csv" "$tmp/f2.csv" && ! cmp -s "$tmp/f1.csv" "$tmp/f3.csv"; then ok
else bad "--fq: not deterministic, or it changed nothing"; fi
expect 2 "--fq is for simulated flows; a script says 'pacing fq'" -- tcp-sim --cc cubic --fq --script "$tmp/none.script"
# --queue-log: the queue every 1 ms, "TIME_S PACKETS" as tunlink logs it
expect 2 "--queue-log is for simulated links; a script has none" -- tcp-sim --cc cubic --queue-log "$tmp/q" --script "$tmp/none.script"
# --jitter is the simulated path's too (it was ignored with a script: the run looked jittered)
expect 2 "--jitter is for simulated links; a script has none" -- tcp-sim --cc cubic --jitter 40us --script "$tmp/none.script"
for o in "--rate 10M" "--delay 5ms" "--queue 20" "--loss 1%" "--reorder 1%" "--ecn-threshold 10"; do
  expect 2 "${o%% *} is for simulated links; a script has none" -- tcp-sim --cc cubic $o --script "$tmp/none.script"
done
expect 1 "cannot write /nonexistent/q" -- tcp-sim --cc cubic --duration 10ms --queue-log /nonexistent/q
expect 0 "flow cc" -- tcp-sim --cc cubic --rate 10M --delay 5ms --duration 100ms --queue-log "$tmp/q"
if [ "$(wc -l <"$tmp/q")" = 100 ] && [ "$(sed -n 1p "$tmp/q")" = "0.001 0" ] && [ "$(sed -n 11p "$tmp/q")" = "0.011 10" ] &&
  [ "$(sed -n 100p "$tmp/q" | cut -d' ' -f1)" = 0.100 ]; then ok
else bad "--queue-log: $(head -12 "$tmp/q" | tr '\n' ' ')"; fi
# --- --reorder: packets held back on the link; RACK's window widens after the first
# spurious retransmission (D-SACKed), the later reorderings cost none; same seed, same run ---
expect 0 "--reorder P\[,D\]" -- tcp-sim --help
expect 2 "--reorder: '2' is not P\[,D\]" -- tcp-sim --cc cubic --reorder 2
expect 2 "--reorder: '1%,0' is not P\[,D\]" -- tcp-sim --cc cubic --reorder 1%,0
expect 0 "reordering: 103 packets delayed; senders saw it 103 times, degree up to 34, RACK reo_wnd up to 2 x min_rtt/4; 1 retransmissions D-SACKed" -- tcp-sim --cc cubic --rate 100M --delay 5ms --queue 100000 --duration 5s --reorder 0.2%,4ms
expect 0 "^0 +cubic +9[0-9]\.[0-9]+ Mb/s +1 +0 +1 " -- tcp-sim --cc cubic --rate 100M --delay 5ms --queue 100000 --duration 5s --reorder 0.2%,4ms
expect 0 "" -- tcp-sim --cc cubic --cc bbr --rate 100M --delay 2ms --loss 0.5% --duration 2s --trace "$tmp/r1.csv" --quiet --reorder 1%,1ms
expect 0 "" -- tcp-sim --cc cubic --cc bbr --rate 100M --delay 2ms --loss 0.5% --duration 2s --trace "$tmp/r2.csv" --quiet --reorder 1%,1ms
expect 0 "" -- tcp-sim --cc cubic --cc bbr --rate 100M --delay 2ms --loss 0.5% --duration 2s --trace "$tmp/r3.csv" --quiet --reorder 0
if cmp -s "$tmp/r1.csv" "$tmp/r2.csv" && ! cmp -s "$tmp/r1.csv" "$tmp/r3.csv"; then ok
else bad "--reorder: not deterministic, or it changed nothing"; fi

# --- --jitter: path timing noise; dctcp at K = 10 with TSO leaves the phase exact timing
# locks it in (CE marks 2904 in 5 s) for Linux's regime (about 1940) ---
expect 0 "--jitter D" -- tcp-sim --help
expect 2 "--jitter: '11ms' is not a time of at most 10 ms" -- tcp-sim --cc cubic --jitter 11ms
expect 2 "--jitter: '4xs' is not a time" -- tcp-sim --cc cubic --jitter 4xs
expect 0 "^jitter: each data packet and ACK up to 40 us late \(uniform\)$" -- tcp-sim --cc dctcp --rate 100M --delay 2ms \
  --ecn-threshold 10 --queue 33 --duration 5s --tso --jitter 40us
expect 0 "CE marks 19[0-9][0-9]$" -- tcp-sim --cc dctcp --rate 100M --delay 2ms --ecn-threshold 10 --queue 33 --duration 5s \
  --tso --jitter 40us
expect 0 "CE marks 2904$" -- tcp-sim --cc dctcp --rate 100M --delay 2ms --ecn-threshold 10 --queue 33 --duration 5s --tso

# --- --trace-bbr: BBR's model per ACK (mode, gains, bandwidth, min RTT, extra_acked) ---
expect 0 "" -- tcp-sim --cc bbr --cc cubic --duration 3s --trace "$tmp/b.csv" --trace-bbr --quiet
if head -1 "$tmp/b.csv" | grep -q ',ca_state,bbr_mode,pacing_gain,cwnd_gain,bbr_bw_Bps,bbr_min_rtt_us,extra_acked$' &&
   grep -q '^[0-9.]*,0,.*,2,[0-9]*,512,[0-9]*,40000,[0-9]*$' "$tmp/b.csv" && grep -q '^[0-9.]*,1,.*,,,,,$' "$tmp/b.csv"; then ok
else bad "--trace-bbr: header or BBR columns"; fi
# only with --trace (it wrote nothing, silently), and not with --script (whose trace it
# left without the BBR columns)
expect_error 2 "^kbpf tcp-sim: --trace-bbr goes with --trace, and not with --script$" -- tcp-sim --cc bbr --duration 1s --trace-bbr
bbr_script=$(dirname "$0")/../tcp-scripts/bbr-startup-probe-bw-probe-rtt.script
expect_error 2 "--trace-bbr goes with --trace, and not with --script" -- \
  tcp-sim --cc bbr --script "$bbr_script" --trace "$tmp/s.csv" --trace-bbr

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

# --- 100 Gbit/s: the summary's goodput is what the trace delivered (bytes × 8 × 10^9 no
# longer overflows past 2.3 GB; 0.4 s carries more than 4 GB, so the sequence space wraps) ---
out=$("$kbpf" tcp-sim --cc cubic --rate 100G --delay 20us --queue 200000 --duration 0.4s --trace "$tmp/g.csv" 2>&1)
summary=$(printf '%s\n' "$out" | awk '$1 == "0" && $2 == "cubic" { print $3 }')
fromtrace=$(awk -F, 'END { printf "%.2f", ($9 - 1) * 1448 * 8 / 0.4 / 1e6 }' "$tmp/g.csv")
if [ -n "$summary" ] && [ "$summary" = "$fromtrace" ] && awk -v g="$summary" 'BEGIN { exit !(g > 88000) }'; then ok
else bad "100G goodput: summary '$summary' Mb/s, trace $fromtrace Mb/s"; fi

# --- plot through gnuplot ---
if command -v gnuplot >/dev/null; then
  expect 0 "plot: .*p.svg" -- tcp-sim --cc cubic --cc reno --duration 5s --plot "$tmp/p.svg"
  if grep -q "<svg" "$tmp/p.svg" 2>/dev/null; then ok; else bad "no svg written"; fi
  expect 0 "" -- tcp-sim --cc bbr --duration 2s --plot "$tmp/p.png" --quiet
  if [ -s "$tmp/p.png" ]; then ok; else bad "no png written"; fi
else
  echo "gnuplot not installed: plot tests skipped (scripts/install-deps installs it)"
fi

# --- BPF congestion controls (tests/bpf/tcp_*.bpf.o): --cc FILE.o[:MAP] ---
if [ -n "$bpf" ] && [ -f "$bpf/tcp_fwd_cubic.bpf.o" ]; then
  expect 0 "^1 +fwd_cubic +[0-9.]+ Mb/s" -- tcp-sim --cc cubic --cc "$bpf/tcp_fwd_cubic.bpf.o" --duration 5s
  expect 0 "^0 +bpf_reno " -- tcp-sim --cc "$bpf/tcp_reno.bpf.o:bpf_reno" --duration 2s
  # forwarders made of the native CCs' kfuncs: per-ACK traces identical to the native CC,
  # on the JIT and on the interpreter
  for pair in cubic:tcp_fwd_cubic reno:tcp_fwd_reno bbr:tcp_fwd_bbr reno:tcp_reno; do
    native=${pair%%:*} obj=${pair#*:}
    expect 0 "" -- tcp-sim --cc "$native" --loss 0.1% --duration 30s --seed 5 --trace "$tmp/n.csv" --quiet
    expect 0 "" -- tcp-sim --cc "$bpf/$obj.bpf.o" --loss 0.1% --duration 30s --seed 5 --trace "$tmp/j.csv" --quiet --jit
    expect 0 "" -- tcp-sim --cc "$bpf/$obj.bpf.o" --loss 0.1% --duration 30s --seed 5 --trace "$tmp/i.csv" --quiet --no-jit
    if [ "$(wc -l <"$tmp/n.csv")" -gt 10000 ] && cmp -s "$tmp/n.csv" "$tmp/j.csv"; then ok; else bad "$obj (jit) vs $native: traces differ"; fi
    if cmp -s "$tmp/n.csv" "$tmp/i.csv"; then ok; else bad "$obj (interpreter) vs $native: traces differ"; fi
  done
  expect 0 "" -- tcp-sim --cc dctcp --ecn-threshold 20 --duration 10s --trace "$tmp/n.csv" --quiet
  expect 0 "" -- tcp-sim --cc "$bpf/tcp_fwd_dctcp.bpf.o" --ecn-threshold 20 --duration 10s --trace "$tmp/j.csv" --quiet
  if cmp -s "$tmp/n.csv" "$tmp/j.csv"; then ok; else bad "tcp_fwd_dctcp vs dctcp: traces differ"; fi
  # examples/tcp/dctcp_watch: its own cwnd_event (counting events), the rest forwarded
  expect 0 "" -- tcp-sim --cc dctcp --ecn-threshold 20 --duration 30s --seed 3 --trace "$tmp/n.csv" --quiet
  expect 0 "" -- tcp-sim --cc "$bpf/dctcp_watch.bpf.o" --ecn-threshold 20 --duration 30s --seed 3 --trace "$tmp/j.csv" --quiet --jit
  expect 0 "" -- tcp-sim --cc "$bpf/dctcp_watch.bpf.o" --ecn-threshold 20 --duration 30s --seed 3 --trace "$tmp/i.csv" --quiet --no-jit
  if [ "$(wc -l <"$tmp/n.csv")" -gt 10000 ] && cmp -s "$tmp/n.csv" "$tmp/j.csv"; then ok; else bad "dctcp_watch (jit) vs dctcp: traces differ"; fi
  if cmp -s "$tmp/n.csv" "$tmp/i.csv"; then ok; else bad "dctcp_watch (interpreter) vs dctcp: traces differ"; fi
  # the same object twice: loaded once, two flows of one CC
  expect 0 "^1 +fwd_reno " -- tcp-sim --cc "$bpf/tcp_fwd_reno.bpf.o" --cc "$bpf/tcp_fwd_reno.bpf.o" --duration 2s
  # init falls back to cubic through bpf_setsockopt(TCP_CONGESTION)
  expect 0 "^0 +cubic " -- tcp-sim --cc "$bpf/tcp_fallback.bpf.o" --duration 2s
  # refusals, with Linux's messages
  expect_error 1 "no write support to tcp_sock at off [0-9]+" -- tcp-sim --cc "$bpf/tcp_bad_write.bpf.o"
  expect_error 1 "program of this type cannot use helper bpf_setsockopt#49" -- tcp-sim --cc "$bpf/tcp_bad_release.bpf.o"
  expect 1 "attach to unsupported member get_info of struct tcp_congestion_ops" -- tcp-sim --cc "$bpf/tcp_bad_get_info.bpf.o"
  expect_error 1 "bad_incomplete does not implement required ops" -- tcp-sim --cc "$bpf/tcp_bad_incomplete.bpf.o"
  expect_error 1 "flags 0x4 not within TCP_CONG_MASK" -- tcp-sim --cc "$bpf/tcp_bad_flags.bpf.o"
  expect_error 1 "name \"cubic\" is already registered" -- tcp-sim --cc "$bpf/tcp_bad_dup.bpf.o"
  expect_error 1 "no struct_ops map 'nosuch'" -- tcp-sim --cc "$bpf/tcp_fwd_reno.bpf.o:nosuch"
  if command -v gnuplot >/dev/null; then
    expect 0 "" -- tcp-sim --cc "$bpf/tcp_fwd_cubic.bpf.o" --cc reno --duration 3s --plot "$tmp/b.svg" --quiet
    if grep -q "0 fwd_cubic" "$tmp/b.svg" 2>/dev/null; then ok; else bad "BPF CC not named in the plot"; fi
  fi
  # the object commands see the program type and the kfunc sets
  expect 0 "3 programs loaded" -- prog load "$bpf/tcp_reno.bpf.o"
  expect 0 "cubictcp_cong_avoid\(struct sock \*sk, __u32 ack, __u32 acked\)" -- kfuncs --type tcp_congestion_ops
  expect 0 "tcp_slow_start" -- kfuncs --type tcp_congestion_ops
  # kbpf verify types each struct_ops program by the host member it fills
  expect 0 "fwd_cubic_cong_avoid: safe as tcp_congestion_ops" -- verify "$bpf/tcp_fwd_cubic.bpf.o"
  expect 1 "no write support to tcp_sock at off [0-9]+" -- verify "$bpf/tcp_bad_write.bpf.o"
  expect 1 "bad_write_cong_avoid: rejected as tcp_congestion_ops" -- verify "$bpf/tcp_bad_write.bpf.o"
  expect 1 "attach to unsupported member get_info of struct tcp_congestion_ops" -- verify "$bpf/tcp_bad_get_info.bpf.o"
  expect 1 "program of this type cannot use helper bpf_setsockopt#49" -- verify "$bpf/tcp_bad_release.bpf.o"
else
  echo "tests/bpf objects not built (clang): BPF CC tests skipped"
fi

finish
