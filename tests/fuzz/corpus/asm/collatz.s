# SPDX-License-Identifier: Apache-2.0
# Collatz: count the steps from R1 down to 1 (27 takes 111 steps).
# Written in the pseudo-C syntax that Linux's verifier log prints.
	r0 = 0
	if r1 <= 1 goto done
loop:
	r0 += 1
	r2 = r1
	r2 &= 1
	if r2 != 0 goto odd
	r1 >>= 1
	goto next
odd:
	r3 = r1
	r1 <<= 1
	r1 += r3
	r1 += 1
next:
	if r1 != 1 goto loop
done:
	exit
