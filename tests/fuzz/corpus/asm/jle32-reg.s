# Set %r9 to 0x100000000
mov %r9, 1
lsh %r9, 32
mov %r0, 0
mov %r1, 5
mov %r2, 4
mov %r3, 6
# set %r1 to 0x100000005
or %r1, %r9
jle32 %r1, %r2, exit # Not taken
jle32 %r1, %r1, +1 # Taken
exit
jle32 %r1, %r3, +1 # Taken
exit
mov %r0, 1
exit
