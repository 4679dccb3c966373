# RFC 9669 Section 4.1: DIV (ALU64) semantics.

# reg variant normal
lddw %r1, 0x0000000000000054
mov %r2, 2
div %r1, %r2
jne %r1, 42, fail

# div-by-zero sets dst to 0 (RFC 9669)
mov %r3, 123
mov %r4, 0
div %r3, %r4
jne %r3, 0, fail

# immediate sign-extension rule for ALU64: imm is sign-extended to 64 then treated as u64.
# If imm were zero-extended, result would be 0x0000000100000000; with sign-extension it becomes 0.
lddw %r5, 0x8000000000000000
div %r5, 0x80000000
jne %r5, 0, fail

mov %r0, 1
exit
fail:
mov %r0, 0
exit
