#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write one case file per program type that tries every context access: LDX, STX of a
scalar and BPF_ST of 1/2/4/8 bytes at offsets -8 .. MAX-1, sign-extending loads, a moved
ctx pointer and a stored stack pointer (every case says 'accept' with retval 1, so the
runners report each refusal as a FAIL line). attack5/README.md compares kbpf's refusals
with the live kernel's:

  tests/verifier/attack5/ctx_sweep.py OUTDIR [MAX] [TYPE ...]
  build/tests/verifier/kbpf-verifier-cases OUTDIR/T.case            # kbpf (runs accepted ones checked)
  KBPF_LINUX_CHECK=1 build/tests/verifier/kbpf-verifier-linux OUTDIR/T.case   # as root
"""
import os
import sys

TYPES = ("socket_filter kprobe sched_cls sched_act tracepoint xdp perf_event cgroup_skb cgroup_sock "
         "lwt_in lwt_out lwt_xmit sock_ops sk_skb cgroup_device sk_msg raw_tracepoint sk_reuseport "
         "flow_dissector cgroup_sysctl sk_lookup cgroup/connect4 cgroup/connect6 cgroup/sendmsg4 "
         "cgroup/sendmsg6 cgroup/recvmsg4 cgroup/recvmsg6 cgroup/bind4 cgroup/bind6 cgroup/getsockopt "
         "cgroup/setsockopt cgroup/post_bind4 cgroup/post_bind6 cgroup/sock_release").split()


def case(f, name, t, body):
    f.write(f"=== {name}\ntype: {t}\nresult: accept\nretval: 1\n---\n{body}r0 = 1\nexit\n\n")


def sweep(out, t, maxoff):
    path = os.path.join(out, t.replace("/", "_") + ".case")
    with open(path, "w") as f:
        f.write(f"ctx sweep of {t}\n\n")
        n = t.replace("/", "_")
        for w in ("u8", "u16", "u32", "u64"):
            for off in range(-8, maxoff):
                o = f"+ {off}" if off >= 0 else f"- {-off}"
                case(f, f"{n}_ldx_{w}_{off}", t, f"r0 = *({w} *)(r1 {o})\n")
                case(f, f"{n}_stx_{w}_{off}", t, f"r2 = 0\n*({w} *)(r1 {o}) = r2\n")
                case(f, f"{n}_st_{w}_{off}", t, f"*({w} *)(r1 {o}) = 0\n")
        for w in ("s8", "s16", "s32"):
            for off in range(-8, maxoff):
                o = f"+ {off}" if off >= 0 else f"- {-off}"
                case(f, f"{n}_ldsx_{w}_{off}", t, f"r0 = *({w} *)(r1 {o})\n")
        for w in ("u8", "u32", "u64"):
            for off in range(0, maxoff, 4):
                case(f, f"{n}_mod_{w}_{off}", t, f"r1 += 4\nr0 = *({w} *)(r1 + {off})\n")
                case(f, f"{n}_ptrst_{w}_{off}", t, f"*({w} *)(r1 + {off}) = r10\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    maxoff = int(sys.argv[2]) if len(sys.argv) > 2 else 320
    os.makedirs(out, exist_ok=True)
    for t in sys.argv[3:] or TYPES:
        sweep(out, t, maxoff)


if __name__ == "__main__":
    main()
