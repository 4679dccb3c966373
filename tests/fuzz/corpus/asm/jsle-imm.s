mov32 %r0, 0
mov %r1, 0xfffffffe
jsle %r1, 0xfffffffd, exit # Not taken
jsle %r1, 0xffffffff, +1 # Taken
exit
mov32 %r0, 1
jsle %r1, 0xfffffffe, +1 # Taken
mov32 %r0, 2
exit
