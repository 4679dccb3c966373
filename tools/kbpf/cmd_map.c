/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf map dump: load an object and show each map's definition and contents, keys and
 * values as hex, or through libbpf's btf_dump when the object gives their BTF type
 * (BTF-defined maps with __type(), global data: its DATASEC), as bpftool does. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <bpf/btf.h>
#include <kbpf/linux.h>
#include <kbpf/btf.h>
#include "cli.h"

void usage_map(void)
{
	printf("usage: kbpf map dump [OPTIONS] FILE.o [MAP]\n\n"
	       "Load the object and print each of its maps (or MAP): type, key and value sizes,\n"
	       "max_entries, flags, then every element as the object leaves it at load (global data\n"
	       "holds its initial values). Keys and values print as hex, and also as C values when\n"
	       "the object's BTF describes them. Global data maps are named after their section\n"
	       "(.data, .rodata, .bss, .kconfig, ...). A value holding a bpf_spin_lock is read\n"
	       "holding it (BPF_F_LOCK); the lock itself shows as zeroes. A map of maps shows its\n"
	       "inner map template, then the inner map in each slot, by name. A perf event array\n"
	       "shows which slots hold a perf buffer's ring (none after a load: 'kbpf run' makes\n"
	       "them and prints the samples). A stack trace map shows each stack id and its frames,\n"
	       "innermost first, as symbol+offset (object) (empty after a load: 'kbpf run' prints\n"
	       "what bpf_get_stackid stored). A socket map (sockmap, sockhash, xskmap,\n"
	       "reuseport_sockarray) shows the host socket in each slot (none after a load: kbpf\n"
	       "has no socket fds). A queue or stack shows its elements, oldest first; an LPM trie\n"
	       "its prefixes (struct bpf_lpm_trie_key keys) in Linux's walk order; a bloom filter\n"
	       "cannot be listed.\n\n"
	       "  --json            one JSON document: each map's definition and, for maps of\n"
	       "                    key/value pairs, its entries typed by BTF as bpftool shows them\n"
	       "                    (docs/loader.md, \"JSON output\")\n" CLI_HOST_USAGE CLI_CAP_USAGE);
}

static void hex(const void *data, size_t size)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < size; i++)
		printf("%s%02x", i ? " " : "", p[i]);
}

static void print_btf(void *ctx, const char *fmt, va_list args)
{
	(void)ctx;
	vprintf(fmt, args);
}

/* One value as C through btf_dump, then a newline. */
static void show_value(struct btf_dump *d, const struct btf *btf, uint32_t type_id, const void *data, size_t size)
{
	struct btf_dump_type_data_opts opts = { .sz = sizeof(opts), .compact = true, .emit_zeroes = true };
	long long tsz = btf__resolve_size(btf, type_id);

	if (tsz <= 0 || (size_t)tsz > size || btf_dump__dump_type_data(d, type_id, data, (size_t)tsz, &opts) < 0)
		printf("(cannot show as BTF type [%u])", type_id);
	printf("\n");
}

/* "name: " then the value as hex, and as C through btf_dump when its type is known. */
static void show(struct btf_dump *d, const struct btf *btf, uint32_t type_id, const char *what, const void *data,
		 size_t size)
{
	printf("  %s: ", what);
	hex(data, size);
	printf("\n");
	if (!d || !type_id)
		return;
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	if (t && btf_is_datasec(t)) {
		/* global data: one line per variable */
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);
			if (!var || !btf_is_var(var) || v->offset > size || v->size > size - v->offset)
				continue;
			printf("    %s = ", btf__name_by_offset(btf, var->name_off));
			show_value(d, btf, var->type, (const char *)data + v->offset, v->size);
		}
		return;
	}
	printf("    = ");
	show_value(d, btf, type_id, data, size);
}

/* QUEUE / STACK: each element, oldest first, from "element 0". A map has no listing
 * call that leaves it alone, so pop everything and push it back in the same order
 * (the CLI's maps have no other users). */
static int dump_queue_stack(struct kbpf_map *m, struct btf_dump *d, const struct btf *btf, uint32_t val_id)
{
	uint32_t vs = kbpf_map_value_size(m), max = kbpf_map_max_entries(m), n = 0;
	bool stack = kbpf_map_type(m) == BPF_MAP_TYPE_STACK;
	char *vals = calloc(max, vs);
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	while (n < max && !kbpf_map_lookup_and_delete(m, NULL, vals + (size_t)n * vs, 0))
		n++;
	for (uint32_t i = 0; i < n; i++) { /* a stack popped newest first */
		char what[32];
		snprintf(what, sizeof(what), "element %u", i);
		show(d, btf, val_id, what, vals + (size_t)(stack ? n - 1 - i : i) * vs, vs);
	}
	for (uint32_t i = 0; i < n && !ret; i++)
		ret = kbpf_map_push(m, vals + (size_t)(stack ? n - 1 - i : i) * vs, 0);
	if (!n)
		printf("  (empty)\n");
	free(vals);
	return ret;
}

static void dump_prog_array(struct kbpf_map *m)
{
	for (uint32_t i = 0; i < kbpf_map_max_entries(m); i++) {
		struct kbpf_prog *p = kbpf_prog_array_get(m, i);
		if (p)
			printf("  slot %u: program '%s'\n", i, kbpf_prog_name(p));
	}
}

/* Linux's slots hold perf event fds, kbpf's the rings of a perf buffer (none after a
 * plain load: `kbpf run` opens one on each perf event array and prints the samples). */
static void dump_perf_event_array(struct kbpf_map *m)
{
	uint32_t held = 0;

	for (uint32_t i = 0; i < kbpf_map_max_entries(m); i++) {
		size_t ring = 0;

		if (kbpf_perf_event_array_slot(m, i, &ring) == 1) {
			printf("  slot %u: perf buffer ring of %zu bytes\n", i, ring);
			held++;
		}
	}
	if (!held)
		printf("  (no perf buffer: slots 0..%u hold none; 'kbpf run' prints what programs output)\n",
		       kbpf_map_max_entries(m) - 1);
}

/* One socket of hosts/linux's model (struct kbpf_linux_sock, the sockets the Linux
 * program types see). */
static void show_sock(const struct kbpf_linux_sock *s)
{
	if (s->sk.family == AF_XDP) {
		printf("xdp socket, queue %u\n", s->xsk.queue_id);
		return;
	}
	printf("socket family %u type %u protocol %u state %u", s->sk.family, s->sk.type, s->sk.protocol,
	       s->sk.state);
	if (s->reuseport_id)
		printf(", reuseport group %u", s->reuseport_id);
	printf("\n");
}

/* SOCKMAP, SOCKHASH, XSKMAP, REUSEPORT_SOCKARRAY: Linux's slots hold sockets behind fds
 * (bpftool prints their cookies); kbpf's hold a host's sockets, none after a load. */
static int dump_sock_map(struct kbpf_map *m)
{
	uint32_t ks = kbpf_map_key_size(m);
	void *key = calloc(1, ks), *next = calloc(1, ks);
	int ret, n = 0;

	if (!key || !next) {
		free(key);
		free(next);
		return -ENOMEM;
	}
	for (ret = kbpf_map_get_next_key(m, NULL, next); !ret; ret = kbpf_map_get_next_key(m, key, next)) {
		struct kbpf_linux_sock *s;

		memcpy(key, next, ks);
		if (kbpf_map_lookup(m, key, &s))
			continue; /* an empty array slot */
		n++;
		if (kbpf_map_type(m) != BPF_MAP_TYPE_SOCKHASH) {
			uint32_t k;
			memcpy(&k, key, sizeof(k));
			printf("  slot %u: ", k);
		} else {
			printf("  key ");
			hex(key, ks);
			printf(": ");
		}
		show_sock(s);
	}
	if (ret == -ENOENT)
		ret = 0;
	if (!n && !ret)
		printf("  (empty: kbpf has no socket fds; a host puts its own sockets in with "
		       "kbpf_linux_sock_map_update)\n");
	free(key);
	free(next);
	return ret;
}

/* "map 'NAME' (TYPE, key K, value V, max_entries N)": an inner map or a template. kbpf
 * has no map ids: a map is named by its name. */
static void inner_desc(const struct kbpf_map *m)
{
	printf("map '%s' (%s, key %u, value %u, max_entries %u)", kbpf_map_name(m),
	       cli_map_type_name(kbpf_map_type(m)), kbpf_map_key_size(m), kbpf_map_value_size(m),
	       kbpf_map_max_entries(m));
}

/* ARRAY_OF_MAPS / HASH_OF_MAPS: the template, then each slot's inner map (where bpftool
 * prints the inner map's id). */
static int dump_map_of_maps(struct kbpf_map *m)
{
	uint32_t ks = kbpf_map_key_size(m);
	void *key = calloc(1, ks ? ks : 1), *next = calloc(1, ks ? ks : 1);
	int ret, n = 0;

	printf("  inner map template: ");
	inner_desc(kbpf_map_inner_meta(m));
	printf("\n");
	if (!key || !next) {
		free(key);
		free(next);
		return -ENOMEM;
	}
	for (ret = kbpf_map_get_next_key(m, NULL, next); !ret; ret = kbpf_map_get_next_key(m, key, next)) {
		struct kbpf_map *inner;

		memcpy(key, next, ks);
		if (kbpf_map_lookup_inner(m, key, &inner))
			continue; /* an empty array slot */
		n++;
		if (ks == 4) {
			uint32_t k;
			memcpy(&k, key, 4);
			printf("  slot %u: ", k);
		} else {
			printf("  key ");
			hex(key, ks);
			printf(": ");
		}
		inner_desc(inner);
		printf("\n");
	}
	if (ret == -ENOENT)
		ret = 0;
	if (!n && !ret)
		printf("  (empty)\n");
	free(key);
	free(next);
	return ret;
}

static int dump_map(const struct kbpf_object *obj, struct kbpf_map *m)
{
	const struct btf *btf = kbpf_object_btf(obj);
	uint32_t key_id = kbpf_object_map_btf_key_type_id(obj, m), val_id = kbpf_object_map_btf_value_type_id(obj, m);
	uint32_t type = kbpf_map_type(m), ks = kbpf_map_key_size(m), vs = kbpf_map_value_size(m);
	size_t host_vs = kbpf_map_host_value_size(m);
	struct btf_dump *d = NULL;
	char msg[256];
	int ret = 0, n = 0;

	int lock_off = kbpf_map_spin_lock_off(m);
	printf("map '%s': %s, key %u, value %u, max_entries %u, flags 0x%x%s", kbpf_map_name(m),
	       cli_map_type_name(type), ks, vs, kbpf_map_max_entries(m), kbpf_map_flags(m),
	       kbpf_map_is_frozen(m) ? ", frozen" : "");
	if (lock_off >= 0)
		printf(", bpf_spin_lock at %d", lock_off);
	/* kptr slots: the host side reads them as 0 (the pointers are the map's, and
	 * another program's to take), so say what they are */
	for (int i = 0; i < kbpf_map_kptr_cnt(m); i++) {
		const struct kbpf_map_kptr *k = kbpf_map_kptr_get(m, i);
		printf(", %s %s at %u", k->referenced ? "kptr" : "kptr_untrusted", k->type_name, k->offset);
	}
	printf("\n");
	if (type == BPF_MAP_TYPE_RINGBUF) {
		printf("  %llu bytes of records pending\n", (unsigned long long)kbpf_ringbuf_query(m, BPF_RB_AVAIL_DATA));
		return 0;
	}
	if (type == BPF_MAP_TYPE_PROG_ARRAY) {
		dump_prog_array(m);
		return 0;
	}
	if (type == BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
		dump_perf_event_array(m);
		return 0;
	}
	if (type == BPF_MAP_TYPE_STACK_TRACE)
		return cli_stack_map_print(m, NULL);
	if (kbpf_map_inner_meta(m))
		return dump_map_of_maps(m);
	if (type == BPF_MAP_TYPE_SOCKMAP || type == BPF_MAP_TYPE_SOCKHASH || type == BPF_MAP_TYPE_XSKMAP ||
	    type == BPF_MAP_TYPE_REUSEPORT_SOCKARRAY)
		return dump_sock_map(m);
	if (type == BPF_MAP_TYPE_BLOOM_FILTER) {
		printf("  (a bloom filter: values can be tested, not listed)\n");
		return 0;
	}
	/* btf_dump recurses through types: only on BTF it can print */
	if (btf && (key_id || val_id) && (!key_id || !kbpf_btf_check_printable(btf, key_id, msg, sizeof(msg))) &&
	    (!val_id || !kbpf_btf_check_printable(btf, val_id, msg, sizeof(msg))))
		d = btf_dump__new(btf, print_btf, NULL, NULL);
	if (type == BPF_MAP_TYPE_QUEUE || type == BPF_MAP_TYPE_STACK) {
		ret = dump_queue_stack(m, d, btf, val_id);
		btf_dump__free(d);
		return ret;
	}
	void *key = calloc(1, ks ? ks : 1), *next = calloc(1, ks ? ks : 1), *value = calloc(1, host_vs ? host_vs : 1);
	if (!key || !next || !value) {
		ret = -ENOMEM;
		goto out;
	}
	bool percpu = host_vs != vs;
	for (ret = kbpf_map_get_next_key(m, NULL, next); !ret; ret = kbpf_map_get_next_key(m, key, next)) {
		memcpy(key, next, ks);
		/* a value with a bpf_spin_lock is copied holding it (BPF_F_LOCK), as a
		 * program's critical section leaves it; the lock's bytes read as zeroes */
		if (kbpf_map_lookup_flags(m, key, value, lock_off >= 0 ? BPF_F_LOCK : 0))
			continue;
		if (n++)
			printf("\n");
		show(d, btf, key_id, "key", key, ks);
		if (!percpu) {
			show(d, btf, val_id, "value", value, vs);
			continue;
		}
		size_t stride = (vs + 7) / 8 * 8;
		for (size_t cpu = 0; cpu < host_vs / stride; cpu++) {
			char what[48];
			snprintf(what, sizeof(what), "value (cpu %zu)", cpu);
			show(d, btf, val_id, what, (char *)value + cpu * stride, vs);
		}
	}
	if (ret == -ENOENT)
		ret = 0;
	if (!n && !ret)
		printf("  (empty)\n");
out:
	btf_dump__free(d);
	free(key);
	free(next);
	free(value);
	return ret;
}

/* --json: a key or value typed by BTF (as bpftool shows it), else bpftool's hex form
 * without BTF: ["0x01", "0x02", …]. */
static void json_bytes(const struct btf *btf, uint32_t type_id, bool typed, const void *data, size_t size)
{
	if (typed && type_id) {
		cli_btf_json_value(stdout, btf, type_id, data, size);
		return;
	}
	putchar('[');
	for (size_t i = 0; i < size; i++)
		printf("%s\"0x%02x\"", i ? "," : "", ((const unsigned char *)data)[i]);
	putchar(']');
}

/* --json: one map as {"name", "type", "key_size", "value_size", "max_entries", "flags",
 * "frozen", "entries": [{"key", "value"} | {"key", "values": [per CPU]}] or null for the
 * types whose elements are not key/value pairs (ring buffer, prog and perf event arrays,
 * stack traces, maps of maps, socket maps, bloom filter, queue, stack)}. */
static int dump_map_json(const struct kbpf_object *obj, struct kbpf_map *m)
{
	const struct btf *btf = kbpf_object_btf(obj);
	uint32_t key_id = kbpf_object_map_btf_key_type_id(obj, m), val_id = kbpf_object_map_btf_value_type_id(obj, m);
	uint32_t type = kbpf_map_type(m), ks = kbpf_map_key_size(m), vs = kbpf_map_value_size(m);
	size_t host_vs = kbpf_map_host_value_size(m);
	int lock_off = kbpf_map_spin_lock_off(m), ret = 0, n = 0;
	char msg[256];
	bool typed = btf && (!key_id || !kbpf_btf_check_printable(btf, key_id, msg, sizeof(msg))) &&
		     (!val_id || !kbpf_btf_check_printable(btf, val_id, msg, sizeof(msg)));

	printf("{\"name\": ");
	cli_json_str(stdout, kbpf_map_name(m), SIZE_MAX);
	printf(", \"type\": ");
	cli_json_str(stdout, cli_map_type_name(type), SIZE_MAX);
	printf(", \"key_size\": %u, \"value_size\": %u, \"max_entries\": %u, \"flags\": %u, \"frozen\": %s, "
	       "\"entries\": ", ks, vs, kbpf_map_max_entries(m), kbpf_map_flags(m),
	       kbpf_map_is_frozen(m) ? "true" : "false");
	if (type == BPF_MAP_TYPE_RINGBUF || type == BPF_MAP_TYPE_PROG_ARRAY || type == BPF_MAP_TYPE_PERF_EVENT_ARRAY ||
	    type == BPF_MAP_TYPE_STACK_TRACE || kbpf_map_inner_meta(m) || type == BPF_MAP_TYPE_SOCKMAP ||
	    type == BPF_MAP_TYPE_SOCKHASH || type == BPF_MAP_TYPE_XSKMAP || type == BPF_MAP_TYPE_REUSEPORT_SOCKARRAY ||
	    type == BPF_MAP_TYPE_BLOOM_FILTER || type == BPF_MAP_TYPE_QUEUE || type == BPF_MAP_TYPE_STACK) {
		printf("null}");
		return 0;
	}
	void *key = calloc(1, ks ? ks : 1), *next = calloc(1, ks ? ks : 1), *value = calloc(1, host_vs ? host_vs : 1);
	if (!key || !next || !value) {
		ret = -ENOMEM;
		goto out;
	}
	bool percpu = host_vs != vs;
	putchar('[');
	for (ret = kbpf_map_get_next_key(m, NULL, next); !ret; ret = kbpf_map_get_next_key(m, key, next)) {
		memcpy(key, next, ks);
		if (kbpf_map_lookup_flags(m, key, value, lock_off >= 0 ? BPF_F_LOCK : 0))
			continue;
		printf("%s\n    {\"key\": ", n++ ? "," : "");
		json_bytes(btf, key_id, typed, key, ks);
		if (!percpu) {
			printf(", \"value\": ");
			json_bytes(btf, val_id, typed, value, vs);
		} else {
			size_t stride = (vs + 7) / 8 * 8;
			printf(", \"values\": [");
			for (size_t cpu = 0; cpu < host_vs / stride; cpu++) {
				if (cpu)
					putchar(',');
				json_bytes(btf, val_id, typed, (char *)value + cpu * stride, vs);
			}
			putchar(']');
		}
		putchar('}');
	}
	if (ret == -ENOENT)
		ret = 0;
	printf("%s]}", n ? "\n  " : "");
out:
	free(key);
	free(next);
	free(value);
	return ret;
}

int cmd_map(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, 0, 'h' }, { "json", no_argument, 0, 'J' },
						   CLI_HOST_LONGOPTS, { 0, 0, 0, 0 } };
	bool json = false;
	struct cli_host_opts ho = { 0 };
	struct kbpf_object *obj;
	struct kbpf_host *host;
	struct kbpf_map *m = NULL;
	int c, ret, shown = 0;

	if (argc < 2)
		return cli_error(EXIT_USAGE, "map", "expected 'dump' (see 'kbpf map --help')");
	if (cli_is_help(argv[1])) {
		usage_map();
		return EXIT_OK;
	}
	if (strcmp(argv[1], "dump"))
		return cli_error(EXIT_USAGE, "map", "unknown subcommand '%s' (dump)", argv[1]);
	argc--, argv++;
	optind = 0;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage_map(); return EXIT_OK;
		case 'J': json = true; break;
		case CLI_OPT_HOST:
		case CLI_OPT_KCONFIG:
		case CLI_OPT_CAP:
		case CLI_OPT_BTF:
		case CLI_OPT_SET:
		case CLI_OPT_PROG_FLAGS:
		case CLI_OPT_TRUSTED:
			ret = cli_host_option("map", c, optarg, &ho);
			if (ret)
				return ret;
			break;
		case ':':
			return cli_error(EXIT_USAGE, "map", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_error(EXIT_USAGE, "map", "bad option '%s' (see 'kbpf map --help')", argv[optind - 1]);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return cli_error(EXIT_USAGE, "map", "dump: expected FILE.o [MAP] (see 'kbpf map --help')");
	const char *path = argv[optind], *name = argc - optind > 1 ? argv[optind + 1] : NULL;
	host = cli_host_new("map", &ho);
	if (!host)
		return EXIT_FAIL;
	struct cli_open_opts oo = { .load = true, .caps = ho.caps, .prog_flags = ho.prog_flags,
				    .trusted_unverified = 1 /* runs nothing */ };
	ret = cli_object_open_with("map dump", path, host, &oo, &obj);
	if (ret) {
		cli_host_free(host);
		return ret;
	}
	if (name && !kbpf_object_find_map(obj, name)) {
		kbpf_object_close(obj);
		cli_host_free(host);
		return cli_error(EXIT_FAIL, "map dump", "%s: no map '%s'", path, name);
	}
	if (json) {
		printf("{\"file\": ");
		cli_json_str(stdout, path, SIZE_MAX);
		printf(", \"maps\": [");
	}
	while ((m = kbpf_object_next_map(obj, m)) && !ret) {
		if (name && strcmp(kbpf_map_name(m), name))
			continue;
		if (json) {
			printf("%s\n  ", shown++ ? "," : "");
			ret = dump_map_json(obj, m);
		} else {
			if (shown++)
				printf("\n");
			ret = dump_map(obj, m);
		}
		if (ret)
			cli_error(EXIT_FAIL, "map dump", "%s: map '%s': %s", path, kbpf_map_name(m), strerror(-ret));
	}
	if (json)
		printf("%s]}\n", shown ? "\n" : "");
	else if (!shown && !ret)
		printf("%s: no maps\n", path);
	kbpf_object_close(obj);
	cli_host_free(host);
	return ret ? EXIT_FAIL : EXIT_OK;
}
