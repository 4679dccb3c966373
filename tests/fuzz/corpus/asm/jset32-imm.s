# Set %r9 to 0x100000000
mov %r9, 1
lsh %r9, 32
mov32 %r0, 0
mov32 %r1, 0x7
# set %r1 to 0x100000007
or %r1, %r9
jset32 %r1, 0x8, exit # Not taken

mov32 %r0, 1
mov32 %r1, 0x9
jset32 %r1, 0x8, +1 # Taken

mov32 %r0, 2 # Skipped

exit
