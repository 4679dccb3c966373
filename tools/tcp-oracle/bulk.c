/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel side of scripts/tcp-kernel-compare (our own code, first written for the
 * project's TCP oracle; tools/tcp-oracle/README.md); not part of the build, no CI. */
/* bulk: one TCP bulk flow with a chosen congestion control; samples TCP_INFO and TCP_CC_INFO */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <pthread.h>
#include <time.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <linux/inet_diag.h>
#include <sys/socket.h>
#include "args.h"

static uint64_t now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec*1000000ull + t.tv_nsec/1000; }
static int fd; static volatile int done; static uint64_t t0; static FILE *out; static int sample_us; static char cc[32];
/* TCP_CC_INFO as four columns: bbr: bw (bit/s), min_rtt (µs), pacing_gain, cwnd_gain (1/256);
 * dctcp: alpha (1/1024), ce_state, ab_ecn, ab_tot; others: zeros */
static void cc_info(unsigned long long v[4]) {
	union tcp_cc_info ci; socklen_t l = sizeof ci;
	memset(v, 0, 4 * sizeof v[0]);
	if (getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &ci, &l)) return;
	if (!strcmp(cc, "bbr") && l >= sizeof ci.bbr) {
		v[0] = (((unsigned long long)ci.bbr.bbr_bw_hi << 32) | ci.bbr.bbr_bw_lo) * 8;
		v[1] = ci.bbr.bbr_min_rtt; v[2] = ci.bbr.bbr_pacing_gain; v[3] = ci.bbr.bbr_cwnd_gain;
	} else if (strstr(cc, "dctcp") && l >= sizeof ci.dctcp) {
		v[0] = ci.dctcp.dctcp_alpha; v[1] = ci.dctcp.dctcp_ce_state; v[2] = ci.dctcp.dctcp_ab_ecn; v[3] = ci.dctcp.dctcp_ab_tot;
	}
}
static void *sampler(void *a) {
	(void)a;
	fprintf(out, "t_us cwnd ssthresh rtt_us rttvar_us ca_state retrans total_retrans lost unacked delivery_rate_bps pacing_rate_bps bytes_acked delivered delivered_ce"
		" sacked retrans_out reordering %s snd_wnd notsent_bytes busy_us rwnd_limited_us sndbuf_limited_us\n",
		!strcmp(cc, "bbr") ? "bbr_bw_bps bbr_min_rtt_us pacing_gain cwnd_gain" : strstr(cc, "dctcp") ? "alpha ce_state ab_ecn ab_tot" : "cc0 cc1 cc2 cc3");
	while (!done) {
		struct tcp_info ti; socklen_t l = sizeof ti; unsigned long long v[4];
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) == 0) {
			cc_info(v);
			fprintf(out, "%llu %u %u %u %u %u %u %u %u %u %llu %llu %llu %u %u %u %u %u %llu %llu %llu %llu %u %u %llu %llu %llu\n", (unsigned long long)(now_us() - t0),
				ti.tcpi_snd_cwnd, ti.tcpi_snd_ssthresh, ti.tcpi_rtt, ti.tcpi_rttvar, ti.tcpi_ca_state, ti.tcpi_retransmits,
				ti.tcpi_total_retrans, ti.tcpi_lost, ti.tcpi_unacked, (unsigned long long)ti.tcpi_delivery_rate * 8,
				(unsigned long long)ti.tcpi_pacing_rate * 8, (unsigned long long)ti.tcpi_bytes_acked, ti.tcpi_delivered, ti.tcpi_delivered_ce,
				ti.tcpi_sacked, ti.tcpi_retrans, ti.tcpi_reordering, v[0], v[1], v[2], v[3],
				/* what limits the sender besides cwnd: the peer's window, the send buffer */
				ti.tcpi_snd_wnd, ti.tcpi_notsent_bytes, (unsigned long long)ti.tcpi_busy_time,
				(unsigned long long)ti.tcpi_rwnd_limited, (unsigned long long)ti.tcpi_sndbuf_limited);
		}
		usleep(sample_us);
	}
	return NULL;
}
int main(int argc, char **argv) {
	if (argc >= 3 && !strcmp(argv[1], "server")) {
		int s = socket(AF_INET, SOCK_STREAM, 0), one = 1; setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)arg_int("bulk", "PORT", argv[2], 1, 65535)) };
		/* the receiver's CC (inherited by accepted sockets): Linux grants ECN to an ECT SYN
		 * (a NEEDS_ECN sender such as dctcp) only from a listener whose CC needs ECN too */
		if (argc > 4 && setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, argv[4], strlen(argv[4]))) { perror("TCP_CONGESTION"); return 1; }
		if (bind(s, (void *)&a, sizeof a) || listen(s, 8)) { perror("bind/listen"); return 1; }
		int n = argc > 3 ? (int)arg_int("bulk", "nconn", argv[3], 1, 1024) : 1; /* connections to serve */
		struct timeval tv = { 120, 0 }; setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		printf("listening\n"); fflush(stdout);
		for (int i = 0; i < n; i++) {
			int c = accept(s, NULL, NULL); if (c < 0) { perror("accept"); return 1; }
			if (fork() == 0) { static char b[1 << 16]; setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv); while (read(c, b, sizeof b) > 0); _exit(0); }
			close(c);
		}
		return 0;
	}
	if (argc < 8) { fprintf(stderr, "usage: bulk server PORT [nconn [CC]] | bulk client IP PORT CC SECONDS SAMPLE_US OUT\n"); return 2; }
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)arg_int("bulk", "PORT", argv[3], 1, 65535)) };
	if (inet_pton(AF_INET, argv[2], &a.sin_addr) != 1) { fprintf(stderr, "bulk: IP must be an IPv4 address, not '%s'\n", argv[2]); return 2; }
	double secs = arg_num("bulk", "SECONDS", argv[5], 0.001, 86400);
	sample_us = (int)arg_int("bulk", "SAMPLE_US", argv[6], 1, 10000000);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, argv[4], strlen(argv[4]))) { perror("TCP_CONGESTION"); return 1; }
	if (connect(fd, (void *)&a, sizeof a)) { perror("connect"); return 1; }
	socklen_t cl = sizeof cc; getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &cl);
	if (!(out = fopen(argv[7], "w"))) { perror(argv[7]); return 1; }
	t0 = now_us(); pthread_t th; pthread_create(&th, NULL, sampler, NULL);
	static char buf[1 << 16]; memset(buf, 'x', sizeof buf);
	struct timeval tv = { 1, 0 }; setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	uint64_t end = t0 + (uint64_t)(secs * 1e6);
	while (now_us() < end) { ssize_t n = write(fd, buf, sizeof buf); if (n < 0 && errno != EAGAIN && errno != EINTR) { perror("write"); break; } }
	struct tcp_info ti; socklen_t l = sizeof ti; getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l);
	done = 1; pthread_join(th, NULL); fclose(out);
	double el = (now_us() - t0) / 1e6;
	printf("cc=%s secs=%.2f goodput_mbit=%.3f total_retrans=%u delivered=%u delivered_ce=%u min_rtt_us=%u dsack_dups=%u reord_seen=%u"
	       " reordering=%u segs_out=%u\n", cc, el,
		ti.tcpi_bytes_acked * 8 / el / 1e6, ti.tcpi_total_retrans, ti.tcpi_delivered, ti.tcpi_delivered_ce, ti.tcpi_min_rtt,
		ti.tcpi_dsack_dups, ti.tcpi_reord_seen, ti.tcpi_reordering, ti.tcpi_segs_out);
	close(fd);
	return 0;
}
