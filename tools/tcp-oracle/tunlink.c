/* SPDX-License-Identifier: Apache-2.0 */
/* Copied from the project's TCP oracle (../shared/oracle/tcp, our own code) for
 * scripts/tcp-kernel-compare; not part of the build, no CI. */
/* tunlink: tiny mahimahi-like link emulator between two TUN devices .
 * A->B: random loss, drop-tail FIFO at `rate`, optional CE marking when queue >= K, then one-way delay.
 * B->A: one-way delay only.  Runs for at most `secs` seconds.  */
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
#include <sys/prctl.h>
#include <linux/if.h>
#include <linux/if_tun.h>

#define RING 16384
#define PKTMAX 2048
typedef struct { uint64_t dep, arr; uint16_t len; uint8_t buf[PKTMAX]; } slot_t;
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
int main(int argc, char **argv) {
	if (argc < 9) { fprintf(stderr, "usage: tunlink tunA tunB rate_mbit delay_ms qlimit_pkts loss_prob ecnK(0=off) secs [qlog]\n"); return 2; }
	double rate = atof(argv[3]) * 1e6; uint64_t delay = (uint64_t)(atof(argv[4]) * 1e6);
	uint32_t qlim = atoi(argv[5]); double loss = atof(argv[6]); uint32_t K = atoi(argv[7]); double secs = atof(argv[8]);
	FILE *qlog = argc > 9 ? fopen(argv[9], "w") : NULL;
	prctl(PR_SET_TIMERSLACK, 1);
	int fa = tun_open(argv[1]), fb = tun_open(argv[2]);
	printf("ready\n"); fflush(stdout);
	ring_t ab = { calloc(RING, sizeof(slot_t)), 0, 0, 0 }, ba = { calloc(RING, sizeof(slot_t)), 0, 0, 0 };
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9), last_dep = 0, next_qlog = t0;
	unsigned long fwd = 0, qdrop = 0, rdrop = 0, marks = 0, rev = 0; uint32_t maxq = 0;
	for (;;) {
		uint64_t now = now_ns();
		if (now >= end) break;
		while (ab.qhead != ab.tail && ab.s[ab.qhead % RING].dep <= now) ab.qhead++;
		uint32_t qlen = ab.tail - ab.qhead;
		if (qlog && now >= next_qlog) { fprintf(qlog, "%.6f %u\n", (now - t0) / 1e9, qlen); next_qlog += 1000000; }
		/* deliver due packets */
		while (ab.head != ab.tail && ab.s[ab.head % RING].arr <= now) { slot_t *s = &ab.s[ab.head % RING]; if (write(fb, s->buf, s->len) < 0 && errno != EAGAIN) perror("write b"); ab.head++; fwd++; }
		while (ba.head != ba.tail && ba.s[ba.head % RING].arr <= now) { slot_t *s = &ba.s[ba.head % RING]; if (write(fa, s->buf, s->len) < 0 && errno != EAGAIN) perror("write a"); ba.head++; rev++; }
		uint64_t next = end;
		if (ab.head != ab.tail && ab.s[ab.head % RING].arr < next) next = ab.s[ab.head % RING].arr;
		if (ba.head != ba.tail && ba.s[ba.head % RING].arr < next) next = ba.s[ba.head % RING].arr;
		if (ab.qhead != ab.tail && ab.s[ab.qhead % RING].dep < next) next = ab.s[ab.qhead % RING].dep;
		if (qlog && next_qlog < next) next = next_qlog;
		struct pollfd pf[2] = { { fa, POLLIN, 0 }, { fb, POLLIN, 0 } };
		struct timespec to = { 0, 0 };
		if (next > now) { uint64_t d = next - now; to.tv_sec = d / 1000000000ull; to.tv_nsec = d % 1000000000ull; }
		int r = ppoll(pf, 2, &to, NULL);
		if (r <= 0) continue;
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
			if (qlen + 1 > maxq) maxq = qlen + 1;
		}
		if (pf[1].revents & POLLIN) for (;;) { /* B -> A: delay only */
			slot_t *s = &ba.s[ba.tail % RING];
			ssize_t n = read(fb, s->buf, PKTMAX); if (n <= 0) break;
			if (ba.tail - ba.head >= RING - 1) continue;
			s->arr = now + delay; s->len = n; ba.tail++;
		}
	}
	printf("fwd=%lu rev=%lu qdrop=%lu rdrop=%lu ce_marks=%lu maxq=%u\n", fwd, rev, qdrop, rdrop, marks, maxq);
	if (qlog) fclose(qlog);
	return 0;
}
