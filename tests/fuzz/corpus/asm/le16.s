ldxh %r0, [%r1]
le16 %r0
exit
