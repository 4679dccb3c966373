stdw [%r1+2], 0x44332211
ldxdw %r0, [%r1+2]
exit
