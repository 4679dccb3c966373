mov32 %r0, -13
smod32 %r0, -3
exit
