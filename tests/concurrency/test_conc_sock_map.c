/* SPDX-License-Identifier: Apache-2.0 */
/* Socket maps shared by threads: N threads run a program (interpreter and JIT) that looks
 * a socket up in a SOCKMAP or SOCKHASH, reads two of its struct bpf_sock fields and
 * releases it, while a host thread keeps putting sockets into the slots and taking them
 * out (kbpf_linux_sock_map_update, kbpf_map_delete) and another program thread replaces
 * them from the program side (bpf_map_update_elem with a socket it looked up). Every
 * answer must be "empty" or the fields of one of the host's sockets (all alive
 * throughout): a slot is one atomic pointer (SOCKMAP) or a hash element's value, never a
 * torn or freed one. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <kbpf/linux.h>
#include "conc_util.h"
#include "test.h"

#define NSOCK 4u
#define NKEYS 4u
#define MAX_THREADS 8u

/* ctx: the key (u64). r0: 0xff for an empty slot, else protocol << 8 | state. */
static const char lookup_text[] =
	"r1 = *(u64 *)(r1 +0)\n"
	"*(u32 *)(r10 -4) = r1\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r1 = map[idx:0]\n"
	"call 1\n"
	"if r0 != 0 goto found\n"
	"r0 = 0xff\n"
	"exit\n"
	"found:\n"
	"r1 = r0\n"
	"r6 = *(u32 *)(r0 +12)\n"
	"r7 = *(u32 *)(r0 +72)\n"
	"call 86\n"
	"r6 <<= 8\n"
	"r6 |= r7\n"
	"r0 = r6\n"
	"exit\n";

/* ctx: from key, to key (u64 each): the socket at from, if any, stored at to too. */
static const char move_text[] =
	"r6 = r1\n"
	"r1 = *(u64 *)(r6 +0)\n"
	"*(u32 *)(r10 -4) = r1\n"
	"r1 = *(u64 *)(r6 +8)\n"
	"*(u32 *)(r10 -8) = r1\n"
	"r2 = r10\n"
	"r2 += -4\n"
	"r1 = map[idx:0]\n"
	"call 1\n"
	"if r0 == 0 goto out\n"
	"r7 = r0\n"
	"r3 = r0\n"
	"r2 = r10\n"
	"r2 += -8\n"
	"r1 = map[idx:0]\n"
	"r4 = 0\n"
	"call 2\n"
	"r1 = r7\n"
	"call 86\n"
	"out:\n"
	"r0 = 0\n"
	"exit\n";

static struct kbpf_linux_sock socks[NSOCK];
static struct kbpf_map *map;
static struct kbpf_prog *lookup_progs[2], *move_progs[2];
static atomic_bool stop;
static atomic_uint bad, seen_sock, seen_empty;
static unsigned iters;

static bool valid(uint64_t r0)
{
	if (r0 == 0xff)
		return true;
	for (unsigned i = 0; i < NSOCK; i++)
		if (r0 == ((uint64_t)socks[i].sk.protocol << 8 | socks[i].sk.state))
			return true;
	return false;
}

static void *reader(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	const struct kbpf_prog *p = lookup_progs[id & 1];

	for (unsigned i = 0; i < iters; i++) {
		uint64_t ctx[1] = { (i + id) % NKEYS }, r0 = 0;
		if (kbpf_prog_run(p, ctx, &r0) || !valid(r0)) {
			CONC_SAY("reader %u: key %u gave 0x%llx\n", id, (unsigned)ctx[0], (unsigned long long)r0);
			atomic_fetch_add(&bad, 1);
		} else {
			atomic_fetch_add(r0 == 0xff ? &seen_empty : &seen_sock, 1);
		}
		if (id == 0 && i % 16 == 0) { /* one thread also moves sockets, program-side */
			uint64_t mv[2] = { i % NKEYS, (i / 16 + 1) % NKEYS };
			kbpf_prog_run(move_progs[(i / 16) & 1], mv, &r0);
		}
	}
	return NULL;
}

static void *writer(void *arg)
{
	(void)arg;
	for (unsigned i = 0; !atomic_load(&stop); i++) {
		uint32_t key = i % NKEYS;
		if (i % 3 == 2)
			kbpf_map_delete(map, &key);
		else if (kbpf_linux_sock_map_update(map, &key, &socks[(i / 3) % NSOCK], BPF_ANY))
			atomic_fetch_add(&bad, 1);
	}
	return NULL;
}

static void run_type(uint32_t type)
{
	struct kbpf_host *host = kbpf_host_new();
	struct kbpf_map_def def = { .sz = sizeof(def), .type = type, .key_size = 4, .value_size = 8,
				    .max_entries = NKEYS, .name = "socks" };
	unsigned nthreads = conc_env("KBPF_CONC_THREADS", 4, 1, MAX_THREADS);
	pthread_t readers[MAX_THREADS], w;

	iters = conc_env("KBPF_CONC_ITERS", 20000, 100, 100000000);
	atomic_store(&stop, false);
	atomic_store(&bad, 0);
	atomic_store(&seen_sock, 0);
	atomic_store(&seen_empty, 0);
	CHECK(host && !kbpf_linux_host_add(host));
	CHECK_EQ_U64(kbpf_map_create(&def, &map), 0);
	for (int jit = 0; jit < 2; jit++) {
		lookup_progs[jit] = conc_prog("lookup", lookup_text, host, &map, 1, jit);
		move_progs[jit] = conc_prog("move", move_text, host, &map, 1, jit);
		CHECK(lookup_progs[jit] && move_progs[jit]);
	}
	if (lookup_progs[0] && lookup_progs[1] && move_progs[0] && move_progs[1]) {
		/* every slot holds a socket before the threads start: on a loaded machine the
		 * readers may otherwise finish before the writer is first scheduled */
		for (uint32_t key = 0; key < NKEYS; key++)
			CHECK_EQ_U64(kbpf_linux_sock_map_update(map, &key, &socks[key % NSOCK], BPF_ANY), 0);
		CHECK_EQ_U64(pthread_create(&w, NULL, writer, NULL), 0);
		for (unsigned t = 0; t < nthreads; t++)
			CHECK_EQ_U64(pthread_create(&readers[t], NULL, reader, (void *)(uintptr_t)t), 0);
		for (unsigned t = 0; t < nthreads; t++)
			pthread_join(readers[t], NULL);
		atomic_store(&stop, true);
		pthread_join(w, NULL);
		CHECK_EQ_U64(atomic_load(&bad), 0);
		CHECK(atomic_load(&seen_sock) > 0); /* the readers saw sockets at all */
	}
	for (int jit = 0; jit < 2; jit++) {
		kbpf_prog_free(lookup_progs[jit]);
		kbpf_prog_free(move_progs[jit]);
	}
	kbpf_map_free(map);
	kbpf_host_free(host);
}

static void test_sockmap(void)
{
	run_type(BPF_MAP_TYPE_SOCKMAP);
}

static void test_sockhash(void)
{
	run_type(BPF_MAP_TYPE_SOCKHASH);
}

int main(void)
{
	static const uint32_t proto[NSOCK] = { IPPROTO_TCP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_UDP };
	static const uint32_t state[NSOCK] = { BPF_TCP_ESTABLISHED, BPF_TCP_LISTEN, BPF_TCP_CLOSE, 2 };

	for (unsigned i = 0; i < NSOCK; i++) {
		socks[i].sk.family = i & 1 ? AF_INET6 : AF_INET;
		socks[i].sk.type = proto[i] == IPPROTO_TCP ? SOCK_STREAM : SOCK_DGRAM;
		socks[i].sk.protocol = proto[i];
		socks[i].sk.state = state[i];
	}
	RUN(test_sockmap);
	RUN(test_sockhash);
	return test_summary();
}
