/* SPDX-License-Identifier: Apache-2.0 */
/* glibc's <bits/wordsize.h> for BPF programs (kbpf_add_bpf_object puts this directory
 * before the multiarch one): BPF is LP64, but glibc's x86 header says 64 only when
 * __x86_64__ is defined, which it is not for -target bpf, and then <stdint.h> makes
 * intptr_t 4 bytes and <gnu/stubs.h> wants the 32-bit stubs. */
#define __WORDSIZE 64
#define __WORDSIZE_TIME64_COMPAT32 1
#define __SYSCALL_WORDSIZE 64
