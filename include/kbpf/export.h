/* SPDX-License-Identifier: Apache-2.0 */
/* KBPF_API marks the functions of kbpf's public API. The library is built with
 * -fvisibility=hidden, so only these are visible outside it, and cmake/libkbpf.map gives
 * them their symbol version (KBPF_0.1) in libkbpf.so. Every function declared in
 * include/kbpf/ carries it, and only they (tests/abi checks both ways). */
#ifndef KBPF_EXPORT_H
#define KBPF_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define KBPF_API __attribute__((visibility("default")))
#else
#define KBPF_API
#endif

#endif
