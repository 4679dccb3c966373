# SPDX-License-Identifier: Apache-2.0
# HANG (by design, as Linux 6.12): a may_goto loop in main calls a subprogram with its own
# may_goto loop; each call gets a fresh budget of 8388608 turns, so the run is
# 8388608 * 8388608 (7e13) turns: days on every engine. With 8 frames, 8388608^8.
r6 = 0
l: may_goto out
call sub
r6 += r0
goto l
out: r0 = r6
exit
sub:
r0 = 0
s: may_goto so
r0 += 1
goto s
so: exit
