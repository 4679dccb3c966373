#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write OUT (default atomic_sweep.case): every atomic (add/or/and/xor, their fetch forms,
xchg, cmpxchg; 32 and 64 bits) and BPF_ST (1/2/4/8 bytes) through ten pointer types
(ctx of tc and xdp, packet, xdp metadata, stack, map value, BPF_F_RDONLY_PROG direct
value, ringbuf record, map pointer), each case saying accept so that both runners list
the refusals (attack5/README.md: kbpf and the live kernel refuse the same 156 of 240).

  tests/verifier/attack5/atomic_sweep.py [OUT]
"""
import sys
ops = [('add','lock *({t} *)(r6 + 0) += {r}1'),('or','lock *({t} *)(r6 + 0) |= {r}1'),('and','lock *({t} *)(r6 + 0) &= {r}1'),('xor','lock *({t} *)(r6 + 0) ^= {r}1'),
       ('fadd','{r}1 = atomic{n}_fetch_add(({t} *)(r6 + 0), {r}1)'),('for','{r}1 = atomic{n}_fetch_or(({t} *)(r6 + 0), {r}1)'),('fand','{r}1 = atomic{n}_fetch_and(({t} *)(r6 + 0), {r}1)'),('fxor','{r}1 = atomic{n}_fetch_xor(({t} *)(r6 + 0), {r}1)'),
       ('xchg','{r}1 = atomic{n}_xchg(({t} *)(r6 + 0), {r}1)'),('cmpxchg','{r}0 = atomic{n}_cmpxchg(({t} *)(r6 + 0), {r}0, {r}1)'),
       ('st1','*(u8 *)(r6 + 0) = 1'),('st2','*(u16 *)(r6 + 0) = 1'),('st4','*(u32 *)(r6 + 0) = 1'),('st8','*(u64 *)(r6 + 0) = 1')]
ptrs = {
 'ctx_tc': ('sched_cls','', 'r6 = r1\n', ''),
 'ctx_xdp': ('xdp','', 'r6 = r1\n', ''),
 'pkt_tc': ('sched_cls','', 'r6 = *(u32 *)(r1 + 76)\nr2 = *(u32 *)(r1 + 80)\nr3 = r6\nr3 += 8\nif r3 > r2 goto out\n', 'out:\n'),
 'pkt_xdp': ('xdp','', 'r6 = *(u32 *)(r1 + 0)\nr2 = *(u32 *)(r1 + 4)\nr3 = r6\nr3 += 8\nif r3 > r2 goto out\n', 'out:\n'),
 'meta_xdp': ('xdp','', 'r6 = *(u32 *)(r1 + 8)\nr2 = *(u32 *)(r1 + 0)\nr3 = r6\nr3 += 8\nif r3 > r2 goto out\n', 'out:\n'),
 'stack': ('sched_cls','', '*(u64 *)(r10 - 8) = 0\nr6 = r10\nr6 += -8\n', ''),
 'mapval': ('sched_cls','array 4 8 1', '*(u32 *)(r10 - 4) = 0\nr2 = r10\nr2 += -4\nr1 = map[idx:0]\ncall bpf_map_lookup_elem#1\nif r0 == 0 goto out\nr6 = r0\n', 'out:\n'),
 'rdonly': ('sched_cls','array 4 8 1 0x80', 'r6 = map[idx:0][0]+0\n', ''),
 'ringbuf': ('sched_cls','ringbuf 4096', 'r1 = map[idx:0]\nr2 = 8\nr3 = 0\ncall bpf_ringbuf_reserve#131\nif r0 == 0 goto out\nr6 = r0\n', 'r1 = r6\nr2 = 0\ncall bpf_ringbuf_discard#133\nout:\n'),
 'mapptr': ('sched_cls','array 4 8 1', 'r6 = map[idx:0]\n', ''),
}
OUT = sys.argv[1] if len(sys.argv) > 1 else 'atomic_sweep.case'
with open(OUT, 'w') as f:
    f.write('atomic/st sweep\n\n')
    for pn,(ty,maps,pre,post) in ptrs.items():
        for sz in ('w','dw'):
            for on,tmpl in ops:
                if on.startswith('st') and sz == 'dw':
                    continue  # BPF_ST once, its size in the op
                t = 'u64' if sz=='dw' else 'u32'; r = 'r' if sz=='dw' else 'w'; n = '64' if sz=='dw' else ''
                ins = tmpl.format(t=t,r=r,n=n)
                f.write(f'=== {pn}_{on}_{sz}\ntype: {ty}\n' + (f'maps: {maps}\n' if maps else '') + 'result: accept\n---\n' + pre + 'r0 = 0\nr1 = 1\n' + ins + '\n' + post + 'r0 = 0\nexit\n\n')
