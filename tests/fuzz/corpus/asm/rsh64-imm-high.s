mov %r0, 0x10
rsh %r0, 68
exit
