# RFC 9669 Section 4.1: NEG (ALU64) semantics.

mov %r1, 1
neg %r1
jne %r1, 0xffffffff, fail

mov %r2, 0
neg %r2
jne %r2, 0, fail

mov %r0, 1
exit
fail:
mov %r0, 0
exit
