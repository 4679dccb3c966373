/* SPDX-License-Identifier: Apache-2.0 */
/* BPF congestion controls on the TCP host (hosts/tcp/bpf_*.c): forwarders made only of the
 * native CCs' kfuncs give per-ACK traces bit-identical to the native CCs, on the
 * interpreter and the JIT; a Reno written in BPF matches native reno; bpf_setsockopt /
 * getsockopt(TCP_CONGESTION), sk storage, the simulated clocks and CONFIG_HZ; and the
 * rejections, with Linux's messages. Objects: tests/bpf/tcp_*.bpf.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <kbpf/kbpf.h>
#include <kbpf/map.h>
#include <kbpf/struct_ops.h>
#include <kbpf/tcp_host.h>
#include "test.h"

#ifndef KBPF_TEST_BPF_OBJ_DIR
#define KBPF_TEST_BPF_OBJ_DIR ""
#endif

static struct kbpf_host *host;
static char log_buf[65536];

static int have_objects(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tcp_fwd_reno.bpf.o", KBPF_TEST_BPF_OBJ_DIR);
	FILE *f = KBPF_TEST_BPF_OBJ_DIR[0] ? fopen(path, "r") : NULL;
	if (f)
		fclose(f);
	return f != NULL;
}

/* Open and load tests/bpf/<name>.bpf.o on the host; NULL (and the log in log_buf) if
 * it fails. */
static struct kbpf_object *load(const char *name, int jit, int *err)
{
	char path[512];
	struct kbpf_object *obj = NULL;
	struct kbpf_object_open_opts o = { .sz = sizeof(o), .trusted_unverified = 1, .host = host, .log_buf = log_buf,
					   .log_size = sizeof(log_buf), .jit = jit };
	int ret;

	snprintf(path, sizeof(path), "%s/%s.bpf.o", KBPF_TEST_BPF_OBJ_DIR, name);
	log_buf[0] = 0;
	ret = kbpf_object_open_file(path, &o, &obj);
	if (!ret)
		ret = kbpf_object_load(obj);
	if (err)
		*err = ret;
	if (ret) {
		if (!err)
			fprintf(stderr, "%s: %s\n", name, log_buf);
		kbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

struct trace {
	struct kbpf_tcp_trace_point *p;
	size_t n, cap;
};

static void on_ack(const struct kbpf_tcp_trace_point *pt, void *ctx)
{
	struct trace *t = ctx;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		struct kbpf_tcp_trace_point *p = realloc(t->p, cap * sizeof(*p));
		if (!p)
			return;
		t->p = p;
		t->cap = cap;
	}
	/* field by field: padding is not part of the trace */
	memset(&t->p[t->n], 0, sizeof(*pt));
	t->p[t->n].time_us = pt->time_us;
	t->p[t->n].flow = pt->flow;
	t->p[t->n].cwnd = pt->cwnd;
	t->p[t->n].ssthresh = pt->ssthresh;
	t->p[t->n].srtt_us = pt->srtt_us;
	t->p[t->n].pacing_rate = pt->pacing_rate;
	t->p[t->n].inflight = pt->inflight;
	t->p[t->n].queue_pkts = pt->queue_pkts;
	t->p[t->n].delivered = pt->delivered;
	t->p[t->n].lost = pt->lost;
	t->p[t->n].retrans = pt->retrans;
	t->p[t->n].ca_state = pt->ca_state;
	t->n++;
}

struct scenario {
	double loss;
	uint32_t ecn;
	uint64_t duration_us;
};

/* One flow of ops for the scenario, every ACK traced. */
static int run(const struct scenario *sc, const struct tcp_congestion_ops *ops, struct trace *t,
	       struct kbpf_tcp_flow_stats *fs)
{
	struct kbpf_tcp_sim_opts o = { .sz = sizeof(o), .rate_bps = 20000000, .delay_us = 20000,
				       .loss = sc->loss, .ecn_threshold_pkts = sc->ecn, .seed = 7 };
	struct kbpf_tcp_sim *sim;
	int ret = kbpf_tcp_sim_create(&o, &sim);

	if (ret)
		return ret;
	ret = kbpf_tcp_sim_add_flow(sim, ops, NULL, NULL);
	kbpf_tcp_sim_set_trace(sim, on_ack, t);
	if (!ret)
		ret = kbpf_tcp_sim_run(sim, sc->duration_us);
	if (!ret)
		ret = kbpf_tcp_sim_flow_stats(sim, 0, fs);
	kbpf_tcp_sim_free(sim);
	return ret;
}

/* The BPF CC of object name gives the native CC's per-ACK trace, bit for bit. */
static void check_identical(const char *name, const char *native, const struct scenario *sc, int jit)
{
	struct kbpf_object *obj = load(name, jit, NULL);
	struct kbpf_tcp_bpf_cc *cc = NULL;
	struct trace tn = { 0 }, tb = { 0 };
	struct kbpf_tcp_flow_stats fn, fb;
	struct kbpf_tcp_bpf_cc_opts co = { .sz = sizeof(co), .log_buf = log_buf, .log_size = sizeof(log_buf) };

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_tcp_bpf_cc_load(obj, NULL, host, &co, &cc), 0);
	if (!cc) {
		fprintf(stderr, "%s: %s\n", name, log_buf);
		kbpf_object_close(obj);
		return;
	}
	CHECK_EQ_U64(run(sc, kbpf_tcp_cc_find(native), &tn, &fn), 0);
	CHECK_EQ_U64(run(sc, kbpf_tcp_bpf_cc_ops(cc), &tb, &fb), 0);
	CHECK(tn.n > 1000);
	CHECK_EQ_U64(tb.n, tn.n);
	if (tb.n == tn.n && memcmp(tb.p, tn.p, tn.n * sizeof(*tn.p))) {
		for (size_t i = 0; i < tn.n; i++)
			if (memcmp(&tb.p[i], &tn.p[i], sizeof(tn.p[i]))) {
				fprintf(stderr, "%s (%s): ACK %zu differs: cwnd %u vs %u, ssthresh %u vs %u at %llu us\n",
					name, jit ? "jit" : "interpreter", i, tb.p[i].cwnd, tn.p[i].cwnd,
					tb.p[i].ssthresh, tn.p[i].ssthresh, (unsigned long long)tn.p[i].time_us);
				break;
			}
		CHECK(!"traces differ");
	}
	CHECK_EQ_U64(fb.bytes_acked, fn.bytes_acked);
	CHECK_EQ_U64(fb.retransmits, fn.retransmits);
	CHECK(fn.retransmits > 0 || sc->ecn);
	free(tn.p);
	free(tb.p);
	kbpf_tcp_bpf_cc_free(cc);
	kbpf_object_close(obj);
}

static const struct scenario lossy = { .loss = 0.0005, .duration_us = 30000000 };
static const struct scenario ecn = { .ecn = 20, .duration_us = 30000000 };

static void test_forward_reno(void)
{
	check_identical("tcp_fwd_reno", "reno", &lossy, 0);
	check_identical("tcp_fwd_reno", "reno", &lossy, 1);
}

static void test_forward_cubic(void)
{
	check_identical("tcp_fwd_cubic", "cubic", &lossy, 0);
	check_identical("tcp_fwd_cubic", "cubic", &lossy, 1);
}

static void test_forward_dctcp(void)
{
	check_identical("tcp_fwd_dctcp", "dctcp", &ecn, 0);
	check_identical("tcp_fwd_dctcp", "dctcp", &ecn, 1);
}

static void test_forward_bbr(void)
{
	check_identical("tcp_fwd_bbr", "bbr", &lossy, 0);
	check_identical("tcp_fwd_bbr", "bbr", &lossy, 1);
}

/* Reno written in BPF, writing snd_cwnd/snd_cwnd_cnt itself. */
static void test_bpf_reno(void)
{
	check_identical("tcp_reno", "reno", &lossy, 0);
	check_identical("tcp_reno", "reno", &lossy, 1);
}

/* What tcp_fallback.bpf.c records (its struct fb_res). */
struct fb_res {
	int ebusy_cnt;
	int cdg_res;
	int init_calls;
	int stg_seen;
	int ack_res;
	int pad;
	uint64_t jiffies;
	uint64_t coarse_ns;
	uint64_t hz;
	char cc_res[16];
	int bad_level_res;
	int pad2;
	char bad_level_buf[16];
};

/* init switches to cubic, back to itself (its nested init gets -EBUSY three times), to
 * cubic again; "cdg" is -ENOTSUPP; getsockopt reads "cubic". Both ends of the flow run it.
 * The sender's storage value set from C is seen by init, and goes with the socket. */
static void test_setsockopt_fallback(void)
{
	struct kbpf_object *obj = load("tcp_fallback", 0, NULL);
	struct kbpf_tcp_bpf_cc *cc = NULL;
	struct kbpf_tcp_sim *sim = NULL;
	struct kbpf_tcp_flow_stats fs;
	struct kbpf_map *stg, *bss;
	struct fb_res *res;
	int v = 0xeB9F, out = 0;
	void *addr = NULL;

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_tcp_bpf_cc_load(obj, NULL, host, NULL, &cc), 0);
	stg = kbpf_object_find_map(obj, "sk_stg");
	bss = kbpf_object_find_map(obj, ".bss");
	CHECK(stg && bss && cc);
	if (!stg || !bss || !cc)
		goto out;
	CHECK_EQ_U64(kbpf_map_direct_value_addr(bss, 0, &addr), 0);
	res = addr;
	CHECK_EQ_U64(kbpf_tcp_sim_create(NULL, &sim), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_register_cc(sim, kbpf_tcp_bpf_cc_ops(cc)), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_register_cc(sim, kbpf_tcp_bpf_cc_ops(cc)), (uint64_t)-EEXIST);
	CHECK_EQ_U64(kbpf_tcp_sim_register_cc(sim, &kbpf_tcp_cubic), (uint64_t)-EEXIST);
	CHECK(kbpf_tcp_sim_find_cc(sim, "bpf_fallback") == kbpf_tcp_bpf_cc_ops(cc));
	CHECK(kbpf_tcp_sim_find_cc(sim, "bbr") == &kbpf_tcp_bbr);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, kbpf_tcp_bpf_cc_ops(cc), NULL, NULL), 0);
	/* Linux's test: bpf_map_update_elem(sk_stg, &sock_fd, 0xeB9F) before connect() */
	struct sock *snd = (struct sock *)kbpf_tcp_sim_sender(sim, 0);
	CHECK_EQ_U64(kbpf_tcp_sk_storage_update(stg, snd, &v, BPF_NOEXIST), 0);
	CHECK_EQ_U64(kbpf_tcp_sk_storage_update(stg, snd, &v, BPF_NOEXIST), (uint64_t)-EEXIST);
	CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 2000000), 0);
	CHECK_EQ_U64(res->init_calls, 4);
	CHECK_EQ_U64(res->ebusy_cnt, 6);
	CHECK_EQ_U64(res->cdg_res, (uint64_t)(int64_t)-524);
	CHECK_STR(res->cc_res, "cubic");
	/* an error still writes every byte the verifier takes as written (zeroes) */
	CHECK_EQ_U64(res->bad_level_res, (uint64_t)(int64_t)-EINVAL);
	for (size_t i = 0; i < sizeof(res->bad_level_buf); i++)
		CHECK_EQ_U64(res->bad_level_buf[i], 0);
	CHECK_EQ_U64(res->stg_seen, 0xeB9F);
	CHECK_EQ_U64(res->ack_res, 0);
	CHECK_EQ_U64(res->hz, KBPF_TCP_HZ);
	/* the first init runs one base RTT (40 ms) after the start: jiffy 10 of the
	 * simulation, whose jiffies start at Linux's INITIAL_JIFFIES; ns clock from 1 s */
	CHECK_EQ_U64(res->jiffies, (uint64_t)(uint32_t)(-300 * KBPF_TCP_HZ) + 10);
	CHECK_EQ_U64(res->coarse_ns, 1040000000ULL);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(sim, 0, &fs), 0);
	CHECK_STR(fs.cc, "cubic");
	CHECK(fs.bytes_acked > 1000000);
	/* init deleted the value and made a new one (+1) in each nested init */
	CHECK_EQ_U64(kbpf_tcp_sk_storage_lookup(stg, snd, &out), 0);
	CHECK_EQ_U64(out, 1);
	kbpf_tcp_sim_free(sim);
	/* the sockets are gone, and so are their values (the key is only compared) */
	CHECK_EQ_U64(kbpf_local_storage_lookup(stg, snd, &out), (uint64_t)-ENOENT);
out:
	kbpf_tcp_bpf_cc_free(cc);
	kbpf_object_close(obj);
}

/* A peer whose CC does not need ECN refuses the ECT SYN of a dctcp: no ECN, and dctcp's
 * init (here the BPF forwarder's kfunc call) falls back to dctcp-reno, as in Linux. */
static void test_non_ecn_peer(void)
{
	struct kbpf_object *obj = load("tcp_fwd_dctcp", 1, NULL);
	struct kbpf_tcp_bpf_cc *cc = NULL;
	struct kbpf_tcp_sim *sim = NULL;
	struct kbpf_tcp_flow_opts fo = { .sz = sizeof(fo), .peer_ops = &kbpf_tcp_cubic };
	struct kbpf_tcp_flow_stats fs;

	CHECK(obj != NULL);
	if (!obj)
		return;
	CHECK_EQ_U64(kbpf_tcp_bpf_cc_load(obj, NULL, host, NULL, &cc), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_create(NULL, &sim), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, kbpf_tcp_bpf_cc_ops(cc), &fo, NULL), 0);
	fo.peer_ops = NULL;
	CHECK_EQ_U64(kbpf_tcp_sim_add_flow(sim, kbpf_tcp_bpf_cc_ops(cc), &fo, NULL), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_run(sim, 1000000), 0);
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(sim, 0, &fs), 0);
	CHECK_EQ_U64(fs.ecn_ok, 0);
	CHECK_STR(fs.cc, "dctcp-reno");
	CHECK_STR(kbpf_tcp_sim_receiver(sim, 0)->inet_conn.icsk_ca_ops->name, "cubic");
	CHECK_EQ_U64(kbpf_tcp_sim_flow_stats(sim, 1, &fs), 0);
	CHECK_EQ_U64(fs.ecn_ok, 1);
	CHECK_STR(fs.cc, "fwd_dctcp");
	kbpf_tcp_sim_free(sim);
	kbpf_tcp_bpf_cc_free(cc);
	kbpf_object_close(obj);
}

/* setsockopt on a bare socket (no simulation): native names only. */
static void test_set_congestion_control(void)
{
	static struct tcp_sock tp;
	struct sock *sk = (struct sock *)&tp;

	tp.inet_conn.icsk_ca_ops = &kbpf_tcp_reno;
	tp.inet_conn.icsk_inet.sk.__sk_common.skc_state = TCP_ESTABLISHED;
	tp.snd_cwnd = 10;
	CHECK_EQ_U64(kbpf_tcp_set_congestion_control(sk, "cubic", 6), 0);
	CHECK(tp.inet_conn.icsk_ca_ops == &kbpf_tcp_cubic);
	CHECK_EQ_U64(tp.inet_conn.icsk_ca_initialized, 1);
	CHECK_EQ_U64(kbpf_tcp_set_congestion_control(sk, "cubic", 5), 0);
	CHECK_EQ_U64(kbpf_tcp_set_congestion_control(sk, "nosuch", 6), (uint64_t)-ENOENT);
	CHECK_EQ_U64(kbpf_tcp_set_congestion_control(sk, "cdg", 4), (uint64_t)-524);
	CHECK_EQ_U64(kbpf_tcp_set_congestion_control(sk, "dctcp", 6), 0);
	/* dctcp's init found no ECN: it chose dctcp-reno itself, as Linux's does, and ECT
	 * follows the ops init left (tcp_init_congestion_control): not ECN-capable */
	CHECK_STR(tp.inet_conn.icsk_ca_ops->name, "dctcp-reno");
	CHECK_EQ_U64(tp.inet_conn.icsk_inet.tos & INET_ECN_MASK, INET_ECN_NOT_ECT);
	tp.ecn_flags = TCP_ECN_OK;
	CHECK_EQ_U64(kbpf_tcp_set_congestion_control(sk, "dctcp", 6), 0);
	CHECK_STR(tp.inet_conn.icsk_ca_ops->name, "dctcp");
	CHECK_EQ_U64(tp.inet_conn.icsk_inet.tos & INET_ECN_MASK, INET_ECN_ECT_0);
	CHECK_EQ_U64(kbpf_tcp_set_congestion_control(NULL, "reno", 5), (uint64_t)-EINVAL);
}

static void test_sk_storage_map(void)
{
	struct kbpf_map_def d = { .sz = sizeof(d), .type = BPF_MAP_TYPE_SK_STORAGE, .key_size = 4, .value_size = 8,
				  .map_flags = BPF_F_NO_PREALLOC, .name = "stg" };
	struct kbpf_map *m = NULL;
	int owners[100];
	uint64_t v = 5, out = 0;

	d.map_flags = 0;
	CHECK_EQ_U64(kbpf_map_create(&d, &m), (uint64_t)-EINVAL); /* BPF_F_NO_PREALLOC required */
	d.map_flags = BPF_F_NO_PREALLOC;
	d.max_entries = 1;
	CHECK_EQ_U64(kbpf_map_create(&d, &m), (uint64_t)-EINVAL); /* max_entries must be 0 */
	d.max_entries = 0;
	d.key_size = 8;
	CHECK_EQ_U64(kbpf_map_create(&d, &m), (uint64_t)-EINVAL); /* key: an int (a socket fd) */
	d.key_size = 4;
	d.value_size = 70000;
	CHECK_EQ_U64(kbpf_map_create(&d, &m), (uint64_t)-E2BIG);
	d.value_size = 8;
	CHECK_EQ_U64(kbpf_map_create(&d, &m), 0);
	CHECK(kbpf_local_storage_get(m, &owners[0], NULL, 0) == NULL);
	CHECK(kbpf_local_storage_get(m, &owners[0], NULL, 2) == NULL); /* bad flags */
	uint64_t *p = kbpf_local_storage_get(m, &owners[0], &v, BPF_SK_STORAGE_GET_F_CREATE);
	CHECK(p && *p == 5);
	CHECK(kbpf_local_storage_get(m, &owners[0], NULL, BPF_SK_STORAGE_GET_F_CREATE) == p);
	for (int i = 1; i < 100; i++) /* the table grows */
		CHECK(kbpf_local_storage_get(m, &owners[i], NULL, BPF_SK_STORAGE_GET_F_CREATE) != NULL);
	CHECK(kbpf_local_storage_get(m, &owners[0], NULL, 0) == p);
	CHECK_EQ_U64(kbpf_local_storage_lookup(m, &owners[0], &out), 0);
	CHECK_EQ_U64(out, 5);
	CHECK_EQ_U64(kbpf_local_storage_delete(m, &owners[0]), 0);
	CHECK_EQ_U64(kbpf_local_storage_delete(m, &owners[0]), (uint64_t)-ENOENT);
	CHECK_EQ_U64(kbpf_local_storage_update(m, &owners[0], &v, BPF_EXIST), (uint64_t)-ENOENT);
	CHECK_EQ_U64(kbpf_local_storage_update(m, &owners[0], &v, BPF_ANY), 0);
	CHECK_EQ_U64(kbpf_map_lookup(m, &owners[0], &out), (uint64_t)-EOPNOTSUPP); /* fd-keyed in Linux */
	kbpf_map_free(m);
}

/* Linux's refusals, with its messages: at load (verifier) or when the map becomes a CC. */
static void check_refused(const char *name, int at_load, int err, const char *msg)
{
	int ret = 0;
	struct kbpf_object *obj = load(name, 0, &ret);
	struct kbpf_tcp_bpf_cc *cc = NULL;
	struct kbpf_tcp_bpf_cc_opts co = { .sz = sizeof(co), .log_buf = log_buf, .log_size = sizeof(log_buf) };

	if (at_load) {
		CHECK(obj == NULL);
		CHECK(ret != 0);
		CHECK_CONTAINS(log_buf, msg);
		kbpf_object_close(obj);
		return;
	}
	CHECK(obj != NULL);
	if (!obj) {
		fprintf(stderr, "%s: %s\n", name, log_buf);
		return;
	}
	CHECK_EQ_U64(kbpf_tcp_bpf_cc_load(obj, NULL, host, &co, &cc), (uint64_t)(int64_t)err);
	CHECK(cc == NULL);
	CHECK_CONTAINS(log_buf, msg);
	kbpf_tcp_bpf_cc_free(cc);
	kbpf_object_close(obj);
}

static void test_refusals(void)
{
	check_refused("tcp_bad_write", 1, -EACCES, "no write support to tcp_sock at off ");
	check_refused("tcp_bad_release", 1, -EACCES, "program of this type cannot use helper bpf_setsockopt#49");
	/* a rate_sample is no socket: the host's setsockopt would write it as one */
	check_refused("tcp_bad_sockopt_arg", 1, -EACCES, "R1 is of type rate_sample but sock_common is expected");
	/* program memory is no socket, whatever its size: the kfuncs write a whole tcp_sock */
	check_refused("tcp_bad_stack_sock", 1, -EINVAL, "arg#0 is fp expected ptr_ or socket");
	check_refused("tcp_bad_stack_tcp_sock", 1, -EINVAL, "arg#0 is fp expected ptr_ or socket");
	check_refused("tcp_bad_get_info", 1, -524, "attach to unsupported member get_info of struct tcp_congestion_ops");
	check_refused("tcp_bad_incomplete", 0, -EINVAL, "bad_incomplete does not implement required ops");
	check_refused("tcp_bad_flags", 0, -EINVAL, "flags 0x4 not within TCP_CONG_MASK");
	check_refused("tcp_bad_dup", 0, -EEXIST, "name \"cubic\" is already registered");
}

/* The program type's write rule itself (Linux's three messages). */
static void test_write_rule(void)
{
	const struct kbpf_prog_type *pt = kbpf_host_prog_type_find(host, KBPF_TCP_CA_PROG_TYPE);
	const struct btf *btf = kbpf_host_btf(host);
	int tcp_sock = btf__find_by_name_kind(btf, "tcp_sock", BTF_KIND_STRUCT);
	int sock = btf__find_by_name_kind(btf, "sock", BTF_KIND_STRUCT);
	char msg[256];

	CHECK(pt && pt->btf_struct_access && tcp_sock > 0 && sock > 0);
	if (!pt || !pt->btf_struct_access || tcp_sock <= 0)
		return;
	CHECK_EQ_U64(pt->linux_type, BPF_PROG_TYPE_STRUCT_OPS);
	CHECK_EQ_U64(pt->btf_struct_access(pt, tcp_sock, offsetof(struct tcp_sock, snd_cwnd), 4, msg, sizeof(msg)), 0);
	CHECK_EQ_U64(pt->btf_struct_access(pt, tcp_sock, offsetof(struct tcp_sock, ecn_flags), 1, msg, sizeof(msg)), 0);
	CHECK_EQ_U64(pt->btf_struct_access(pt, tcp_sock, offsetof(struct sock, sk_pacing_rate), 8, msg, sizeof(msg)), 0);
	CHECK_EQ_U64(pt->btf_struct_access(pt, tcp_sock, offsetof(struct inet_connection_sock, icsk_ca_priv) + 8, 8,
					   msg, sizeof(msg)), 0);
	CHECK_EQ_U64(pt->btf_struct_access(pt, tcp_sock, offsetof(struct tcp_sock, snd_cwnd), 8, msg, sizeof(msg)),
		     (uint64_t)-EACCES);
	char want[160];
	snprintf(want, sizeof(want), "write access at off %zu with size 8 beyond the member of tcp_sock ended at %zu",
		 offsetof(struct tcp_sock, snd_cwnd), offsetof(struct tcp_sock, snd_cwnd) + 4);
	CHECK_STR(msg, want);
	CHECK_EQ_U64(pt->btf_struct_access(pt, tcp_sock, offsetof(struct tcp_sock, snd_una), 4, msg, sizeof(msg)),
		     (uint64_t)-EACCES);
	snprintf(want, sizeof(want), "no write support to tcp_sock at off %zu", offsetof(struct tcp_sock, snd_una));
	CHECK_STR(msg, want);
	CHECK_EQ_U64(pt->btf_struct_access(pt, sock, 8, 4, msg, sizeof(msg)), (uint64_t)-EACCES);
	CHECK_STR(msg, "only read is supported");
	/* context: struct sock promoted to struct tcp_sock */
	struct kbpf_ctx_access_info info = { .reg_type = KBPF_PTR_TO_BTF_ID, .btf_id = (uint32_t)sock };
	CHECK_EQ_U64(pt->ctx_arg_access(pt, host, 0, &info), 1);
	CHECK_EQ_U64(info.btf_id, (uint32_t)tcp_sock);
	/* helpers: no setsockopt/getsockopt from release */
	CHECK(pt->get_func_proto_member(pt, host, BPF_FUNC_setsockopt, "init") != NULL);
	CHECK(pt->get_func_proto_member(pt, host, BPF_FUNC_setsockopt, "release") == NULL);
	CHECK(pt->get_func_proto_member(pt, host, BPF_FUNC_getsockopt, "release") == NULL);
	CHECK(pt->get_func_proto_member(pt, host, BPF_FUNC_jiffies64, "release") != NULL);
	CHECK(pt->get_func_proto_member(pt, host, BPF_FUNC_map_lookup_elem, NULL) != NULL);
	CHECK(pt->get_func_proto_member(pt, host, BPF_FUNC_skb_load_bytes, NULL) == NULL);
	CHECK_EQ_U64(kbpf_tcp_host_add(host), (uint64_t)-EEXIST);
}

int main(void)
{
	host = kbpf_host_new();
	if (!host || kbpf_host_btf_load_self(host) || kbpf_tcp_host_add(host)) {
		fprintf(stderr, "cannot set up the TCP host (its BTF: kbpf_add_host_btf)\n");
		return 1;
	}
	RUN(test_write_rule);
	RUN(test_set_congestion_control);
	RUN(test_sk_storage_map);
	if (have_objects()) {
		RUN(test_forward_reno);
		RUN(test_forward_cubic);
		RUN(test_forward_dctcp);
		RUN(test_forward_bbr);
		RUN(test_bpf_reno);
		RUN(test_setsockopt_fallback);
		RUN(test_non_ecn_peer);
		RUN(test_refusals);
	} else {
		fprintf(stderr, "tests/bpf objects not built (clang): object tests skipped\n");
	}
	kbpf_host_free(host);
	return test_summary();
}
