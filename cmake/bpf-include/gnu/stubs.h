/* SPDX-License-Identifier: Apache-2.0 */
/* glibc's <gnu/stubs.h> lists the libc functions a target lacks; BPF programs call no
 * libc function, and glibc's own would ask for the 32-bit list (gnu/stubs-32.h, absent
 * without gcc-multilib) because -target bpf does not define __x86_64__. */
