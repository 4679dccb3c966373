# SPDX-License-Identifier: Apache-2.0
# ESCAPE (termination): `kbpf verify` accepts it (privileged), no engine ever finishes it.
# Expected verdict: reject (the loop in main has no bound: it ends only when sub returns
# non-zero, and sub returns 0 on every call because each call sets a fresh may_goto
# counter). Accepted because the second visit of sub's may_goto is one may_goto_depth
# deeper than the first and covered by it (prune.c's may_goto cut), while main's own
# infinite-loop check needs equal depths. Linux 6.12 (and the live 6.18) accept it too.
l: call sub
if r0 == 0 goto l
exit
sub:
may_goto x
r0 = 0
exit
x: r0 = 1
exit
