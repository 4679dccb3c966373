#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# RESOURCE: writes verify_memory_nest8.s (stdout): 8 frames, each with 512 bytes of spilled
# constants, and in the innermost 4 nested may_goto loops whose counters are made precise
# (used as a stack index). `kbpf verify --type sched_cls` of it peaks at ~2.4 GB RSS and
# ~6 s before refusing it at the 1M-insn limit (plain bounded loops instead: ~0.8 GB).
# Bounded by MAX_STORED_STATES (30000), but a host verifying untrusted programs should know.
#   python3 verify_memory_nest8.py > /tmp/n8.s
#   /usr/bin/time -f "%es %MKB" build/tools/kbpf/kbpf verify --type sched_cls /tmp/n8.s
L = []

def fill():
    for i in range(1, 65):
        L.append(f"r0 = {i}")
        L.append(f"*(u64 *)(r10 -{8 * i}) = r0")

fill()
L += ["call s1", "exit"]
for d in range(1, 7):
    L.append(f"s{d}:")
    fill()
    L += [f"call s{d + 1}" if d < 6 else "call inner", "r0 = 0", "exit"]
L.append("inner:")
for k, r in enumerate(["r6", "r7", "r8", "r9"]):
    L += [f"{r} = 0", f"l{k}: may_goto e{k}", f"{r} += 1", f"if {r} > 60 goto e{k}"]
L += ["r1 = r6", "r1 += r7", "r1 += r8", "r1 += r9", "r1 &= 0x1ff", "r2 = r10", "r2 += -512", "r2 += r1",
      "r0 = *(u8 *)(r2 + 0)"]
for k in reversed(range(4)):
    L += [f"goto l{k}", f"e{k}: r0 = 0"]
L.append("exit")
print("\n".join(L))
