#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `kbpf gen skeleton` (issue 19, item 4): the header embeds the object, types its
# globals, names its programs and maps, and a host built on it configures .rodata
# before load, loads, runs and reads .data/.bss after; errors are one line.
# usage: skeleton.sh KBPF_BINARY SOURCE_DIR BUILD_DIR TEST_BPF_DIR [CFLAGS]
# (CFLAGS: the build's sanitizer flags, for linking its libkbpf.a)
set -u
kbpf=$1 src=$2 build=$3 objs=$4 extra=${5:-}
source "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || { echo "cc not found: skipped"; exit 0; }

expect 0 '^struct config__rodata \{$' -- gen skeleton "$objs/config.bpf.o"
expect 0 '^	enum mode mode;$' -- gen skeleton "$objs/config.bpf.o"
expect 0 '^	struct limits limits;$' -- gen skeleton "$objs/config.bpf.o"
expect 0 'struct kbpf_program \*config;' -- gen skeleton "$objs/config.bpf.o"
expect 0 'struct kbpf_map \*vals;' -- gen skeleton "$objs/core_array.bpf.o"
expect 0 '^struct my_cfg \{$' -- gen skeleton --name my_cfg "$objs/config.bpf.o"
expect 0 '^struct globals__data_foo \{$' -- gen skeleton "$objs/globals.bpf.o"
expect_error 2 "expected 'skeleton OBJ.o'" -- gen "$objs/config.bpf.o"
expect_error 1 "cannot open /nonexistent.o" -- gen skeleton /nonexistent.o

"$kbpf" gen skeleton "$objs/config.bpf.o" -o "$tmp/config.skel.h" && ok || bad "gen -o"
"$kbpf" gen skeleton "$objs/globals.bpf.o" -o "$tmp/globals.skel.h" && ok || bad "gen -o globals"
cat >"$tmp/host.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <stddef.h>
#include <kbpf/linux.h>
#include "config.skel.h"
#include "globals.skel.h"

/* the struct has the section's layout */
_Static_assert(offsetof(struct config__rodata, name) == 4 && sizeof(((struct globals__data *)0)->big) == 32, "layout");

int main(void)
{
	struct kbpf_host *host = kbpf_host_new();
	char ctx[256] = { 0 };
	uint64_t r0 = 0;

	if (!host || kbpf_host_add_map_helpers(host) || kbpf_linux_host_add(host))
		return 10;
	struct config *s = config__open(host);
	if (!s || s->rodata->mode != MODE_OFF || strcmp(s->rodata->name, "none") || s->rodata->limits.bias != -3)
		return 11;
	s->rodata->mode = MODE_SLOW;           /* before load: the verifier sees it */
	strcpy(s->rodata->name, "xyz");
	s->rodata->verbose = 1;
	if (config__load(s) || !s->maps.rodata || !s->progs.config)
		return 12;
	if (kbpf_program_run(s->progs.config, ctx, &r0))
		return 13;
	printf("retval %llu hits %llu last %d mode %d\n", (unsigned long long)r0, (unsigned long long)s->bss->hits,
	       s->data->last, (int)s->rodata->mode);
	config__destroy(s);

	struct globals *g = globals__open_and_load(host);
	if (!g || kbpf_program_run(g->progs.globals, ctx, &r0))
		return 14;
	printf("globals %llu data_var %d bss_var %d str %s big3 %lld foo %d\n", (unsigned long long)r0, g->data->data_var,
	       g->bss->bss_var, g->data->str, (long long)g->data->big[3], g->data_foo->foo_var);
	globals__destroy(g);
	kbpf_host_free(host);
	return 0;
}
C
# shellcheck disable=SC2086 # $extra: zero or more flags
if cc -std=gnu11 -Wall -Werror $extra -I"$tmp" -I"$src/include" -I"$src/hosts/linux/include" "$tmp/host.c" \
     "$build/hosts/linux/libkbpf_linux.a" "$build/libkbpf.a" -lbpf -lelf -lz -lffi -lpthread -ldl -lm \
     -o "$tmp/host" 2>"$tmp/cc.err"; then
  ok
  out=$("$tmp/host" 2>&1); rc=$?
  # 'x' + 1000 - 3 = 1117; hits = hi - lo = 1
  [ "$rc" = 0 ] && grep -q '^retval 5 hits 1 last 1117 mode 5$' <<<"$out" && ok || bad "skeleton host ($rc): $out"
  grep -q '^globals 152 data_var 13 bss_var 1 str hello big3 4 foo 10$' <<<"$out" && ok || bad "globals host: $out"
else
  bad "the skeleton host does not compile: $(head -c 1500 "$tmp/cc.err")"
fi

finish
