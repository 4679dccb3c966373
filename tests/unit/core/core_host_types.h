/* SPDX-License-Identifier: Apache-2.0 */
/* The "host" side of the CO-RE end-to-end test (test_core_elf.c): the layout the host
 * really has. core_target.bpf.c compiles it into BTF (the target of relocation), and
 * the test fills an instance of it for the relocated programs to read. The program's
 * own view (core_prog.bpf.c) orders, sizes and nests these fields differently. */
#ifndef KBPF_TEST_CORE_HOST_TYPES_H
#define KBPF_TEST_CORE_HOST_TYPES_H

enum core_state { CS_RUN = 7, CS_SLEEP = 42, CS_NEW = 1000 };

struct core_task {
	unsigned long long flags;
	int prio;
	unsigned int pid;
	union { /* the program sees cookie as a plain member */
		unsigned long long cookie;
		void *ptr;
	};
	unsigned int f_lo : 4, f_mid : 9, f_hi : 3;
	unsigned short pad;
	int arr[8];
	int sb : 6;
	unsigned long long wide; /* the program has a u32: its load must widen */
	enum core_state st;
};

#endif
