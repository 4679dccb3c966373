/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel side of scripts/tcp-kernel-compare (our own code, first written for the
 * project's TCP oracle; tools/tcp-oracle/README.md); not part of the build, no CI. */
/* tunlink: tiny mahimahi-like link emulator between two TUN devices .
 * A->B: random loss, drop-tail FIFO at `rate`, optional CE marking when queue >= K, then one-way delay.
 * B->A: one-way delay only.  Runs for at most `secs` seconds.
 *
 * Timing: the process sleeps in ppoll() until `spin` µs before its next deadline (a departure,
 * a delivery, a log tick), then polls without sleeping, so that wake-up latency does not delay
 * deliveries (run it under SCHED_FIFO, e.g. `chrt -f 50`, so that other processes do not).
 * -r SEED varies the loss generator (runs with different seeds draw independent losses).
 * With -l FILE it logs, per 1 ms interval: A->B bytes delivered to B (actual writes), how late
 * the latest A->B and B->A delivery of the interval was (µs after its due time), and how late
 * the process woke from its last timed sleep; the summary line gives their percentiles (with
 * or without -l), and the busiest interval's bytes against the rate's 1 ms (burst_1ms).  */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include "args.h"

#define RING 16384
#define PKTMAX 2048
typedef struct { uint64_t dep, arr; uint16_t len; uint8_t late; uint8_t buf[PKTMAX]; } slot_t;
/* -o P,D: data packets picked with probability P are held D more after the delay line, so the
 * packets behind them overtake them (as kbpf tcp-sim --reorder P,D); HOLD of them at a time */
#define HOLD 256
typedef struct { slot_t *s; uint32_t head, tail, qhead; } ring_t; /* [head,tail) in flight; qhead: first not yet serialized */

static uint64_t now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (uint64_t)t.tv_sec*1000000000ull + t.tv_nsec; }
static int tun_open(const char *name) {
	struct ifreq ifr; int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (fd < 0) { perror("open tun"); exit(1); }
	memset(&ifr, 0, sizeof ifr); ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	strncpy(ifr.ifr_name, name, IFNAMSIZ-1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) { perror("TUNSETIFF"); exit(1); }
	return fd;
}
static uint64_t rng = 88172645463325252ull;
static double urand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (rng >> 11) * (1.0/9007199254740992.0); }
static void set_ce(uint8_t *p, int len) {
	if (len < 20 || (p[0] >> 4) != 4) return;
	if ((p[1] & 3) == 0) return; /* not ECT */
	p[1] |= 3; p[10] = p[11] = 0;
	uint32_t sum = 0; int ihl = (p[0] & 15) * 4;
	for (int i = 0; i < ihl; i += 2) sum += (p[i] << 8) | p[i+1];
	while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff; p[10] = sum >> 8; p[11] = sum & 0xff;
}

/* lateness histogram in µs, 0..HMAX-1 (the last bucket holds everything above) */
#define HMAX 100000
typedef struct { uint32_t *h; uint64_t n, max; } hist_t;
static void hist_add(hist_t *h, uint64_t us) { h->h[us < HMAX ? us : HMAX - 1]++; h->n++; if (us > h->max) h->max = us; }
static uint64_t hist_pct(const hist_t *h, double p) {
	if (!h->n) return 0;
	uint64_t want = (uint64_t)(p * (h->n ? h->n - 1 : 0)), c = 0;
	for (uint32_t i = 0; i < HMAX; i++) { c += h->h[i]; if (c > want) return i; }
	return HMAX - 1;
}

int main(int argc, char **argv) {
	uint64_t spin_ns = 0, reo_ns = 0; double reo = 0; FILE *slog = NULL; int o;
	while ((o = getopt(argc, argv, "s:l:r:o:")) != -1) {
		if (o == 's') spin_ns = (uint64_t)(arg_num("tunlink", "-s SPIN_US", optarg, 0, 1e6) * 1000);
		else if (o == 'o') {
			char *comma = strchr(optarg, ',');
			if (!comma) { fprintf(stderr, "tunlink: -o takes PROB,DELAY_US, not '%s'\n", optarg); return 2; }
			*comma = 0;
			reo = arg_num("tunlink", "-o PROB", optarg, 0, 1);
			reo_ns = (uint64_t)(arg_num("tunlink", "-o DELAY_US", comma + 1, 1, 1e7) * 1000);
		}
		else if (o == 'r') { uint64_t v = arg_u64("tunlink", "-r SEED", optarg); rng ^= v * 0x9e3779b97f4a7c15ull; if (!rng) rng = 1; }
		else if (o == 'l') { if (!(slog = fopen(optarg, "w"))) { perror(optarg); return 1; } }
		else return 2;
	}
	argc -= optind - 1; argv += optind - 1;
	if (argc < 9) { fprintf(stderr, "usage: tunlink [-s SPIN_US] [-l STATLOG] [-r SEED] [-o PROB,DELAY_US] tunA tunB rate_mbit delay_ms qlimit_pkts loss_prob ecnK(0=off) secs [qlog]\n"); return 2; }
	double rate = arg_num("tunlink", "rate_mbit", argv[3], 0.001, 1e5) * 1e6;
	uint64_t delay = (uint64_t)(arg_num("tunlink", "delay_ms", argv[4], 0, 1e4) * 1e6);
	uint32_t qlim = (uint32_t)arg_int("tunlink", "qlimit_pkts", argv[5], 1, RING - 1);
	double loss = arg_num("tunlink", "loss_prob", argv[6], 0, 1);
	uint32_t K = (uint32_t)arg_int("tunlink", "ecnK", argv[7], 0, RING - 1);
	double secs = arg_num("tunlink", "secs", argv[8], 0.001, 86400);
	FILE *qlog = argc > 9 ? fopen(argv[9], "w") : NULL;
	if (argc > 9 && !qlog) { perror(argv[9]); return 1; }
	prctl(PR_SET_TIMERSLACK, 1);
	mlockall(MCL_CURRENT | MCL_FUTURE);
	int fa = tun_open(argv[1]), fb = tun_open(argv[2]);
	printf("ready\n"); fflush(stdout);
	ring_t ab = { calloc(RING, sizeof(slot_t)), 0, 0, 0 }, ba = { calloc(RING, sizeof(slot_t)), 0, 0, 0 };
	hist_t h_ab = { calloc(HMAX, 4), 0, 0 }, h_ba = { calloc(HMAX, 4), 0, 0 }, h_wake = { calloc(HMAX, 4), 0, 0 };
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9), last_dep = 0, next_qlog = t0, next_iv = t0 + 1000000;
	unsigned long fwd = 0, qdrop = 0, rdrop = 0, marks = 0, rev = 0, spins = 0, sleeps = 0, reordered = 0; uint32_t maxq = 0;
	slot_t *hold = calloc(HOLD, sizeof(slot_t)); uint32_t nhold = 0; /* held data packets, unordered */
	/* per-interval statistics: the -l log's lines, and the busiest interval for the summary */
	uint64_t iv_bytes = 0, iv_late_ab = 0, iv_late_ba = 0, iv_wake = 0, max_iv_bytes = 0;
	uint64_t pending_wake = 0; /* the deadline of the current timed sleep, 0 if none */
	if (slog) fprintf(slog, "t_s ab_bytes ab_late_us ba_late_us wake_late_us\n");
	for (;;) {
		uint64_t now = now_ns();
		if (now >= end) break;
		/* the 1 ms intervals that ended: a line each in the -l log; the busiest, with or
		 * without -l (it was counted only with -l: burst_1ms=0.00 without) */
		while (now >= next_iv) {
			if (slog) fprintf(slog, "%.3f %llu %llu %llu %llu\n", (next_iv - t0) / 1e9, (unsigned long long)iv_bytes,
				(unsigned long long)iv_late_ab, (unsigned long long)iv_late_ba, (unsigned long long)iv_wake);
			if (iv_bytes > max_iv_bytes) max_iv_bytes = iv_bytes;
			iv_bytes = iv_late_ab = iv_late_ba = iv_wake = 0;
			next_iv += 1000000;
		}
		if (pending_wake) { uint64_t l = now > pending_wake ? (now - pending_wake) / 1000 : 0; hist_add(&h_wake, l); if (l > iv_wake) iv_wake = l; pending_wake = 0; }
		while (ab.qhead != ab.tail && ab.s[ab.qhead % RING].dep <= now) ab.qhead++;
		uint32_t qlen = ab.tail - ab.qhead;
		if (qlog && now >= next_qlog) { fprintf(qlog, "%.6f %u\n", (now - t0) / 1e9, qlen); next_qlog += 1000000; }
		/* deliver due packets */
		while (ab.head != ab.tail && ab.s[ab.head % RING].arr <= now) {
			slot_t *s = &ab.s[ab.head % RING];
			if (s->late && nhold < HOLD) { /* held: due D later, the packets behind overtake it */
				slot_t *h = &hold[nhold++];
				h->arr = s->arr + reo_ns; h->len = s->len; memcpy(h->buf, s->buf, s->len);
				ab.head++; reordered++; continue;
			}
			if (write(fb, s->buf, s->len) < 0 && errno != EAGAIN && errno != EIO) perror("write b");
			uint64_t l = (now - s->arr) / 1000; hist_add(&h_ab, l); if (l > iv_late_ab) iv_late_ab = l;
			iv_bytes += s->len; ab.head++; fwd++;
		}
		for (uint32_t i = 0; i < nhold;) {
			slot_t *h = &hold[i];
			if (h->arr > now) { i++; continue; }
			if (write(fb, h->buf, h->len) < 0 && errno != EAGAIN && errno != EIO) perror("write b");
			uint64_t l = (now - h->arr) / 1000; hist_add(&h_ab, l); if (l > iv_late_ab) iv_late_ab = l;
			iv_bytes += h->len; fwd++;
			*h = hold[--nhold];
		}
		while (ba.head != ba.tail && ba.s[ba.head % RING].arr <= now) {
			slot_t *s = &ba.s[ba.head % RING];
			if (write(fa, s->buf, s->len) < 0 && errno != EAGAIN && errno != EIO) perror("write a");
			uint64_t l = (now - s->arr) / 1000; hist_add(&h_ba, l); if (l > iv_late_ba) iv_late_ba = l;
			ba.head++; rev++;
		}
		uint64_t next = end;
		if (ab.head != ab.tail && ab.s[ab.head % RING].arr < next) next = ab.s[ab.head % RING].arr;
		if (ba.head != ba.tail && ba.s[ba.head % RING].arr < next) next = ba.s[ba.head % RING].arr;
		if (ab.qhead != ab.tail && ab.s[ab.qhead % RING].dep < next) next = ab.s[ab.qhead % RING].dep;
		for (uint32_t i = 0; i < nhold; i++) if (hold[i].arr < next) next = hold[i].arr;
		if (qlog && next_qlog < next) next = next_qlog;
		if (slog && next_iv < next) next = next_iv;
		struct pollfd pf[2] = { { fa, POLLIN, 0 }, { fb, POLLIN, 0 } };
		struct timespec to = { 0, 0 };
		/* sleep until `spin` before the deadline; closer than that, poll without sleeping */
		if (next > now + spin_ns) {
			uint64_t d = next - now - spin_ns; to.tv_sec = d / 1000000000ull; to.tv_nsec = d % 1000000000ull;
			sleeps++;
		} else spins++;
		int r = ppoll(pf, 2, &to, NULL);
		if (r <= 0) { if (next > now + spin_ns) pending_wake = next - spin_ns; continue; }
		now = now_ns();
		if (pf[0].revents & POLLIN) for (;;) { /* A -> B through the bottleneck */
			slot_t *s = &ab.s[ab.tail % RING];
			ssize_t n = read(fa, s->buf, PKTMAX); if (n <= 0) break;
			while (ab.qhead != ab.tail && ab.s[ab.qhead % RING].dep <= now) ab.qhead++;
			qlen = ab.tail - ab.qhead;
			if (loss > 0 && urand() < loss) { rdrop++; continue; }
			if (qlen >= qlim || ab.tail - ab.head >= RING - 1) { qdrop++; continue; }
			if (K && qlen >= K) { if ((s->buf[1] & 3) && (s->buf[1] & 3) != 3) marks++; set_ce(s->buf, n); }
			uint64_t start = last_dep > now ? last_dep : now;
			s->dep = start + (uint64_t)(n * 8 * 1e9 / rate); last_dep = s->dep;
			s->arr = s->dep + delay; s->len = n; ab.tail++;
			/* drawn only with -o, so that runs without it keep their loss draws; data only */
			s->late = reo > 0 && n > 200 && urand() < reo;
			if (qlen + 1 > maxq) maxq = qlen + 1;
		}
		if (pf[1].revents & POLLIN) for (;;) { /* B -> A: delay only */
			slot_t *s = &ba.s[ba.tail % RING];
			ssize_t n = read(fb, s->buf, PKTMAX); if (n <= 0) break;
			if (ba.tail - ba.head >= RING - 1) continue;
			s->arr = now + delay; s->len = n; ba.tail++;
		}
	}
	printf("fwd=%lu rev=%lu qdrop=%lu rdrop=%lu ce_marks=%lu maxq=%u reordered=%lu\n", fwd, rev, qdrop, rdrop, marks, maxq, reordered);
	/* lateness of deliveries (µs after due) and of timed wake-ups; the busiest 1 ms of A->B
	 * deliveries against the link's 1 ms of bytes (> 1: a late wake-up delivered a burst) */
	printf("late_ab_us p50=%llu p99=%llu p999=%llu max=%llu late_ba_us p50=%llu p99=%llu p999=%llu max=%llu "
	       "wake_us p50=%llu p99=%llu max=%llu burst_1ms=%.2f spins=%lu sleeps=%lu\n",
		(unsigned long long)hist_pct(&h_ab, .5), (unsigned long long)hist_pct(&h_ab, .99), (unsigned long long)hist_pct(&h_ab, .999), (unsigned long long)h_ab.max,
		(unsigned long long)hist_pct(&h_ba, .5), (unsigned long long)hist_pct(&h_ba, .99), (unsigned long long)hist_pct(&h_ba, .999), (unsigned long long)h_ba.max,
		(unsigned long long)hist_pct(&h_wake, .5), (unsigned long long)hist_pct(&h_wake, .99), (unsigned long long)h_wake.max,
		max_iv_bytes * 8 / (rate * 1e-3), spins, sleeps);
	if (qlog) fclose(qlog);
	if (slog) fclose(slog);
	return 0;
}
