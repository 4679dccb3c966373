/* SPDX-License-Identifier: Apache-2.0 */
/* kbpf run: run a raw or assembled program, or a program of a BPF object, on the
 * interpreter or (--jit) as native code. */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <bpf/btf.h>
#include <kbpf/linux.h>
#include <kbpf/btf.h>
#include "cli.h"

void usage_run(void)
{
	printf("usage: kbpf run [OPTIONS] FILE\n"
	       "       kbpf run [OPTIONS] FILE.o [PROG]\n\n"
	       "Run the program in FILE (raw instructions or assembly text, '-' for stdin) on the\n"
	       "interpreter and print R0. With a BPF object FILE.o, load it (maps, global data,\n"
	       "subprograms, externs) and run its program PROG (loaded even if its section starts\n"
	       "with '?'; PROG may be left out when the object loads just one program).\n"
	       "Unless --checked is given the program runs unchecked. An object's programs of\n"
	       "Linux's types are verified first (an object with programs of no type the host\n"
	       "knows does not load without --trusted-unverified); a raw FILE is verified only\n"
	       "with --packet and --type, and runs unverified only with --checked (confined:\n"
	       "every access checked, no helpers) or --trusted-unverified (unchecked: only for\n"
	       "code you trust). In checked mode an object's programs\n"
	       "may also use the memory of its maps (read-only for .rodata and other\n"
	       "BPF_F_RDONLY_PROG maps).\n"
	       "Unchecked, an object's program gets a context of its type's size: zeroed when none\n"
	       "is given, --ctx/--mem bytes padded with zeros. A networking type's context is made\n"
	       "from a packet: without --packet, 14 zero bytes (an Ethernet header) and --ctx as\n"
	       "with --packet. --checked runs take the memory as given and stop a bad access\n"
	       "themselves: without --mem, --ctx or --packet, R1 is NULL (or the first --arg).\n"
	       "An object's perf event arrays get a perf buffer of 8 pages per CPU slot; what the\n"
	       "run writes there (bpf_perf_event_output) prints last, one line a sample:\n"
	       "\"perf event cpu N: S bytes: xx xx ...\", and \"perf event cpu N: C lost\" for a full ring.\n"
	       "Then each stack trace map the run stored stacks in (bpf_get_stackid): \"stack id N:\n"
	       "F frames\" and the frames, symbolized (this command's own stack at the call).\n\n"
	       "  --mem FILE        R1 = a copy of FILE's bytes, R2 = their length\n"
	       "  --mem-hex HEX     the same with the bytes given as hex ('00 01 ff')\n"
	       "  --ctx FILE        R1 = a copy of FILE's bytes (a context), R2 = 0. A syscall\n"
	       "                    program of FILE.o runs as BPF_PROG_TEST_RUN runs it: a context\n"
	       "                    shorter than what the program touches is refused (no --ctx:\n"
	       "                    NULL, 0 bytes); --mem-out gets the context after the run\n"
	       "  --arg N           set the next of R1..R5 (repeatable; after --mem/--ctx, from R3/R2;\n"
	       "                    an object's program unchecked: from R2, R1 being its context)\n"
	       "  --checked         check every memory access against the stack and the memory given;\n"
	       "                    print the number of instructions executed\n"
	       "  --max-insns N     with --checked: stop after N instructions\n"
	       "  --stack-fill B    with --checked: the stack (and each call's frame) starts filled\n"
	       "                    with byte B instead of zeros: a result that changes with B comes\n"
	       "                    from stack the program read before writing\n"
	       "  --jit             run as native code from the x86-64 JIT (a program the JIT does\n"
	       "                    not take runs on the interpreter, with a note saying why)\n"
	       "  --repeat N        run N times and print the mean duration\n"
	       "  --show-globals    (FILE.o) after the run, each global variable (.data, .rodata, .bss,\n"
	       "                    .data.*, .rodata.*) as \"SECTION NAME = VALUE\", typed by its BTF as\n"
	       "                    bpftool map dump shows values: 13, \"hello\", [1,2], {\"a\":1}\n"
	       "  --json            print the results as one JSON document: retval, insns_executed,\n"
	       "                    runs, duration_ns, packet_out (hex), timers, globals (with\n"
	       "                    --show-globals: {SECTION: {VAR: value}}); perf samples and\n"
	       "                    stack traces are not in it (docs/loader.md, \"JSON output\")\n"
	       "  --timers NS       (FILE.o) then let NS nanoseconds pass on a manual clock: the\n"
	       "                    bpf_timers the run armed fire at their deadlines; print how\n"
	       "                    many callbacks ran\n"
	       "  --harden          --blind and --stack-guard (docs/reliability.md, \"Hardening\")\n"
	       "  --blind           JIT constant blinding: no immediate of the program in native code\n"
	       "  --stack-guard     guard bytes around each stack frame, checked when a function\n"
	       "                    returns: a write just outside the frame stops the run\n"
	       "  --budget N        stop a run after N backward jumps and BPF-to-BPF calls, on the\n"
	       "                    interpreter and the JIT alike (an endless loop stops)\n"
	       "  --mem-out FILE    write the memory (--mem/--ctx) as it is after the run\n"
	       "  --packet FILE     run as Linux's BPF_PROG_TEST_RUN does: FILE is the packet (from\n"
	       "                    its Ethernet header), R1 the context of the program's type\n"
	       "                    (xdp: struct xdp_md; tc, socket filter, cgroup_skb: struct\n"
	       "                    __sk_buff); prints the return value, the packet after the run\n"
	       "                    and the mean duration. With --packet, --ctx FILE gives the\n"
	       "                    context's initial bytes (__sk_buff fields such as mark, cb[]).\n"
	       "                    sk_reuseport: FILE starts at the TCP/UDP header, the group is one\n"
	       "                    listening TCP/IPv4 socket, --ctx gives struct sk_reuseport_md's\n"
	       "                    u32 fields (hash…); prints the socket selected\n"
	       "  --packet-out FILE write the packet after the run to FILE instead of a hex dump\n"
	       "  --type TYPE       with --packet: the program type (xdp, sched_cls, sched_act,\n"
	       "                    socket_filter, cgroup_skb, lwt_in, lwt_out, lwt_xmit,\n"
	       "                    sk_reuseport, or libbpf's SEC() names: tc, socket, ...); objects\n"
	       "                    default to their section's\n"
	       "  --dialect D       assembly dialect: auto, pseudo-c, conformance\n"
	       "objects only:\n" CLI_HOST_USAGE CLI_CAP_USAGE);
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* --json: the run's results as one document, its fields gathered here and printed at
 * the end: {"retval", "insns_executed"?, "runs"?, "duration_ns"?, "selected"?,
 * "packet_out"? (hex) or "packet_out_file"?, "timers"?, "globals"?}. */
static struct {
	bool on;
	char *buf;
	size_t size;
	FILE *f;
	int n;
} rjson;

/* One "key": value (value printf-formatted, already JSON). */
__attribute__((format(printf, 2, 3))) static void jfield(const char *key, const char *fmt, ...)
{
	va_list ap;

	if (!rjson.f)
		return;
	fprintf(rjson.f, "%s\"%s\": ", rjson.n++ ? ", " : "", key);
	va_start(ap, fmt);
	vfprintf(rjson.f, fmt, ap);
	va_end(ap);
}

struct run_args {
	const char *prog_path, *mem_path, *mem_hex, *ctx_path, *mem_out;
	const char *packet_path, *packet_out, *type; /* --packet mode */
	const char *obj_prog; /* PROG of FILE.o */
	struct cli_host_opts host;
	enum kbpf_asm_dialect dialect;
	uint64_t args[5], max_insns, repeat;
	uint64_t timers_ns; /* --timers */
	int nargs, checked, jit, timers;
	int show_globals; /* --show-globals */
	const char *host_type; /* an object's program of a host type named by its section */
	int stack_fill; /* --stack-fill: the byte, or -1 */
	unsigned harden;     /* KBPF_HARDEN_* */
	uint64_t run_budget; /* --budget */
};

static int parse_run_args(int argc, char **argv, struct run_args *a)
{
	static const struct option longopts[] = {
		{ "mem", required_argument, 0, 'm' },     { "mem-hex", required_argument, 0, 'H' },
		{ "ctx", required_argument, 0, 'c' },     { "arg", required_argument, 0, 'a' },
		{ "checked", no_argument, 0, 'k' },       { "max-insns", required_argument, 0, 'M' },
		{ "repeat", required_argument, 0, 'r' },  { "mem-out", required_argument, 0, 'o' },
		{ "dialect", required_argument, 0, 'd' }, { "help", no_argument, 0, 'h' },
		{ "jit", no_argument, 0, 'j' },           { "packet", required_argument, 0, 'p' },
		{ "packet-out", required_argument, 0, 'P' }, { "type", required_argument, 0, 't' },
		{ "harden", no_argument, 0, 'S' },        { "blind", no_argument, 0, 'B' },
		{ "stack-guard", no_argument, 0, 'G' },   { "budget", required_argument, 0, 'U' },
		{ "stack-fill", required_argument, 0, 'F' }, { "timers", required_argument, 0, 'T' },
		{ "show-globals", no_argument, 0, 'g' }, { "json", no_argument, 0, 'J' },
		CLI_HOST_LONGOPTS,                        { 0, 0, 0, 0 },
	};
	int c;

	optind = 0;
	opterr = 0; /* one line: ours */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': a->mem_path = optarg; break;
		case 'H': a->mem_hex = optarg; break;
		case 'c': a->ctx_path = optarg; break;
		case 'o': a->mem_out = optarg; break;
		case 'k': a->checked = 1; break;
		case 'g': a->show_globals = 1; break;
		case 'J': rjson.on = true; break;
		case 'j': a->jit = 1; break;
		case 'T':
			if (cli_parse_u64(optarg, &a->timers_ns))
				return cli_error(EXIT_USAGE, "run", "--timers: '%s' is not a number of ns", optarg);
			a->timers = 1;
			break;
		case 'p': a->packet_path = optarg; break;
		case 'P': a->packet_out = optarg; break;
		case 't': a->type = optarg; break;
		case 'S': a->harden |= KBPF_HARDEN_ALL; break;
		case 'B': a->harden |= KBPF_HARDEN_BLIND; break;
		case 'G': a->harden |= KBPF_HARDEN_STACK_GUARD; break;
		case 'U':
			if (cli_parse_u64(optarg, &a->run_budget) || !a->run_budget || a->run_budget > KBPF_RUN_BUDGET_MAX)
				return cli_error(EXIT_USAGE, "run", "--budget: '%s' is not a count from 1 to 2^48-1", optarg);
			break;
		case 'a':
			if (a->nargs == 5)
				return cli_error(EXIT_USAGE, "run", "at most 5 --arg values (R1..R5)");
			if (cli_parse_u64(optarg, &a->args[a->nargs++]))
				return cli_error(EXIT_USAGE, "run", "--arg: '%s' is not a number", optarg);
			break;
		case 'F': {
			uint64_t v;
			if (cli_parse_u64(optarg, &v) || v > 255)
				return cli_error(EXIT_USAGE, "run", "--stack-fill: '%s' is not a byte (0 to 255)", optarg);
			a->stack_fill = (int)v;
			break;
		}
		case 'M':
			if (cli_parse_u64(optarg, &a->max_insns))
				return cli_error(EXIT_USAGE, "run", "--max-insns: '%s' is not a number", optarg);
			break;
		case 'r':
			if (cli_parse_u64(optarg, &a->repeat) || a->repeat == 0 || a->repeat > 1000000000)
				return cli_error(EXIT_USAGE, "run", "--repeat: '%s' is not a count from 1 to 1e9", optarg);
			break;
		case 'd':
			if (cli_parse_dialect(optarg, &a->dialect))
				return cli_error(EXIT_USAGE, "run", "unknown dialect '%s' (auto, pseudo-c, conformance)", optarg);
			break;
		case 'h': usage_run(); return -1;
		case CLI_OPT_HOST:
		case CLI_OPT_KCONFIG:
		case CLI_OPT_CAP:
		case CLI_OPT_BTF:
		case CLI_OPT_SET:
		case CLI_OPT_PROG_FLAGS:
		case CLI_OPT_TRUSTED: {
			int ret = cli_host_option("run", c, optarg, &a->host);
			if (ret)
				return ret;
			break;
		}
		default: return cli_option_error("run", c, argv);
		}
	}
	if (optind != argc - 1 && optind != argc - 2)
		return cli_error(EXIT_USAGE, "run", "expected one program FILE, or FILE.o [PROG] (see 'kbpf run --help')");
	if (a->packet_path && (a->mem_path || a->mem_hex || a->mem_out))
		return cli_error(EXIT_USAGE, "run", "--packet excludes --mem, --mem-hex and --mem-out");
	if ((a->packet_out || a->type) && !a->packet_path)
		return cli_error(EXIT_USAGE, "run", "--packet-out and --type need --packet");
	if (!!a->mem_path + !!a->mem_hex + !!a->ctx_path > 1)
		return cli_error(EXIT_USAGE, "run", "--mem, --mem-hex and --ctx exclude each other");
	if (a->mem_out && !a->mem_path && !a->mem_hex && !a->ctx_path)
		return cli_error(EXIT_USAGE, "run", "--mem-out needs --mem, --mem-hex or --ctx");
	if (a->max_insns && !a->checked)
		return cli_error(EXIT_USAGE, "run", "--max-insns needs --checked");
	if (a->stack_fill >= 0 && !a->checked)
		return cli_error(EXIT_USAGE, "run", "--stack-fill needs --checked (the fast engines never clear the stack)");
	if (a->jit && a->checked)
		return cli_error(EXIT_USAGE, "run", "--jit and --checked exclude each other (checked runs interpret)");
	if ((a->run_budget || a->harden) && a->checked)
		return cli_error(EXIT_USAGE, "run", "--harden, --blind, --stack-guard and --budget exclude --checked "
				 "(which checks every access; --max-insns bounds it)");
	a->prog_path = argv[optind];
	a->obj_prog = optind == argc - 2 ? argv[optind + 1] : NULL;
	bool is_obj = cli_is_elf_file(a->prog_path);
	if (a->obj_prog && !is_obj)
		return cli_error(EXIT_USAGE, "run", "PROG goes with a BPF object (FILE.o); %s is not one", a->prog_path);
	if (!is_obj && (a->host.host_file || a->host.nr_kconfig || a->host.caps || a->host.prog_flags))
		return cli_error(EXIT_USAGE, "run", "--host, --kconfig, --cap and --prog-flags go with a BPF object (FILE.o)");
	if (!is_obj && a->show_globals)
		return cli_error(EXIT_USAGE, "run", "--show-globals goes with a BPF object (FILE.o)");
	if (!is_obj && a->timers)
		return cli_error(EXIT_USAGE, "run", "--timers goes with a BPF object (FILE.o)");
	return 0;
}

/* The reason of a stop by a hardening option, which unchecked runs do not write. */
static void hardening_stop_reason(const struct run_args *a, int ret, char *err, size_t size)
{
	if (err[0])
		return;
	if (ret == -ETIME && a->run_budget)
		snprintf(err, size, "run budget of %" PRIu64 " backward jumps and calls exhausted", a->run_budget);
	else if (ret == -EFAULT && (a->harden & KBPF_HARDEN_STACK_GUARD))
		snprintf(err, size, "stack guard: the program wrote outside its stack frame");
}

/* KBPF_RUN_* of the options. */
static unsigned run_flags(const struct run_args *a)
{
	return (a->checked ? KBPF_RUN_CHECKED : 0) | (a->stack_fill >= 0 ? KBPF_RUN_STACK_FILL : 0);
}

/* Run once (or repeat times) and report; returns the exit code. */
static int execute(struct kbpf_prog *prog, struct run_args *a, char *mem, size_t mem_len)
{
	char err[256] = "";
	struct kbpf_mem_region region = { mem, mem_len, KBPF_MEM_READ | KBPF_MEM_WRITE, a->ctx_path ? "ctx" : "mem" };
	struct kbpf_run_opts ro = {
		.sz = sizeof(ro), .flags = run_flags(a), .stack_fill = (uint8_t)a->stack_fill,
		.regions = mem ? &region : NULL, .nr_regions = mem ? 1 : 0,
		.max_insns = a->max_insns, .err = err, .err_size = sizeof(err),
	};
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	int first = 0; /* R1.. filled from the memory first, then from --arg */

	if (mem || a->ctx_path) {
		ro.args[0] = (uint64_t)(uintptr_t)mem;
		first = 1;
		if (!a->ctx_path) {
			ro.args[1] = mem_len;
			first = 2;
		}
	}
	if (first + a->nargs > 5)
		return cli_error(EXIT_USAGE, "run", "too many --arg values after --mem/--ctx");
	for (int i = 0; i < a->nargs; i++)
		ro.args[first + i] = a->args[i];

	double t0 = now_ns();
	uint64_t runs = a->repeat ? a->repeat : 1;
	int ret = 0;
	for (uint64_t i = 0; i < runs && !ret; i++)
		ret = kbpf_prog_run_opts(prog, &ro, &rr);
	double elapsed = now_ns() - t0;
	hardening_stop_reason(a, ret, err, sizeof(err));
	if (ret)
		return cli_error(EXIT_FAIL, "run", "program stopped: %s", err[0] ? err : strerror(-ret));

	if (rjson.on) {
		jfield("retval", "%" PRId64, (int64_t)rr.retval);
		if (a->checked)
			jfield("insns_executed", "%" PRIu64, rr.insns_executed);
		if (a->repeat) {
			jfield("runs", "%" PRIu64, runs);
			jfield("duration_ns", "%.1f", elapsed / runs);
		}
		return EXIT_OK;
	}
	printf("retval: 0x%" PRIx64 " (%" PRId64 ")\n", rr.retval, (int64_t)rr.retval);
	if (a->checked)
		printf("insns executed: %" PRIu64 "\n", rr.insns_executed);
	if (a->repeat)
		printf("duration: %.1f ns/run (%" PRIu64 " runs%s)\n", elapsed / runs, runs,
		       a->checked ? ", checked mode" : kbpf_prog_is_jited(prog) ? ", JIT" : "");
	return EXIT_OK;
}

/* --- --packet: Linux's BPF_PROG_TEST_RUN for networking programs ------------------- */

/* Where the program's packet starts: XDP and tc see it from the Ethernet header; socket
 * filters and cgroup_skb after it (Linux's test_run pulls the header for them). */
enum pkt_kind { PKT_NONE, PKT_XDP, PKT_SKB_L2, PKT_SKB_L3, PKT_REUSEPORT };

static enum pkt_kind pkt_kind_of_linux(uint32_t type)
{
	switch (type) {
	case BPF_PROG_TYPE_XDP: return PKT_XDP;
	case BPF_PROG_TYPE_SCHED_CLS:
	case BPF_PROG_TYPE_SCHED_ACT: return PKT_SKB_L2;
	case BPF_PROG_TYPE_SOCKET_FILTER:
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_LWT_IN:
	case BPF_PROG_TYPE_LWT_OUT:
	case BPF_PROG_TYPE_LWT_XMIT: return PKT_SKB_L3;
	case BPF_PROG_TYPE_SK_REUSEPORT: return PKT_REUSEPORT;
	default: return PKT_NONE;
	}
}

static enum pkt_kind pkt_kind_of_name(const char *name)
{
	if (!strcmp(name, "xdp"))
		return PKT_XDP;
	if (!strcmp(name, "sched_cls") || !strcmp(name, "sched_act") || !strcmp(name, "tc"))
		return PKT_SKB_L2;
	if (!strcmp(name, "socket_filter") || !strcmp(name, "cgroup_skb") || !strcmp(name, "lwt_in") ||
	    !strcmp(name, "lwt_out") || !strcmp(name, "lwt_xmit"))
		return PKT_SKB_L3; /* Linux's test run gives lwt programs the network header too */
	if (!strcmp(name, "sk_reuseport"))
		return PKT_REUSEPORT;
	return PKT_NONE;
}

#define PKT_ETH_HLEN 14
#define PKT_SKB_HEADROOM 64 /* Linux's NET_SKB_PAD */
#define PKT_TAILROOM 256

struct pkt_run {
	uint8_t *buf;
	size_t buf_size;
	struct kbpf_linux_skb skb;
	struct kbpf_linux_xdp xdp;
	struct kbpf_linux_reuseport reuse;
	struct kbpf_linux_sock sock; /* sk_reuseport: the group's socket */
	void *ctx;
	size_t ctx_size;
};

/* sk_reuseport (Linux has no test run for it): the packet from its L4 header, arriving
 * for a group of one listening TCP/IPv4 socket; --ctx sets sk_reuseport_md's u32 fields
 * (not its pointers). */
static int pkt_setup_reuseport(struct pkt_run *r, size_t len, const char *ctx_in, size_t ctx_len)
{
	struct sk_reuseport_md md = { 0 };

	if (ctx_in)
		memcpy(&md, ctx_in, ctx_len < sizeof(md) ? ctx_len : sizeof(md));
	r->sock.sk.family = AF_INET;
	r->sock.sk.type = SOCK_STREAM;
	r->sock.sk.protocol = IPPROTO_TCP;
	r->sock.sk.state = BPF_TCP_LISTEN;
	r->sock.reuseport_id = 1;
	if (kbpf_linux_reuseport_init(&r->reuse, &r->sock, r->buf, len, md.hash))
		return cli_error(EXIT_FAIL, "run", "--packet: cannot set up the sk_reuseport context");
	r->reuse.md.eth_protocol = md.eth_protocol ? md.eth_protocol : htobe16(0x0800);
	if (md.ip_protocol)
		r->reuse.md.ip_protocol = md.ip_protocol;
	r->reuse.md.bind_inany = md.bind_inany;
	r->ctx = &r->reuse;
	r->ctx_size = sizeof(r->reuse);
	return 0;
}

static int pkt_setup(struct pkt_run *r, enum pkt_kind kind, const char *pkt, size_t len,
		     const char *ctx_in, size_t ctx_len)
{
	size_t head = kind == PKT_XDP ? KBPF_LINUX_XDP_HEADROOM : kind == PKT_REUSEPORT ? 0 : PKT_SKB_HEADROOM;

	memset(r, 0, sizeof(*r));
	if (kind == PKT_SKB_L3 && len < PKT_ETH_HLEN)
		return cli_error(EXIT_FAIL, "run", "--packet: %zu bytes, shorter than an Ethernet header", len);
	r->buf_size = head + len + PKT_TAILROOM;
	/* the verifier rewrites the program's u32 data/data_end loads into loads of the
	 * context's real 64-bit pointers (src/verifier/fixup.c): the buffer can be anywhere */
	r->buf = calloc(1, r->buf_size);
	if (!r->buf)
		return cli_error(EXIT_FAIL, "run", "out of memory");
	memcpy(r->buf + head, pkt, len);
	if (kind == PKT_REUSEPORT)
		return pkt_setup_reuseport(r, len, ctx_in, ctx_len);
	if (kind == PKT_XDP) {
		if (ctx_in)
			memcpy(&r->xdp.md, ctx_in, ctx_len < sizeof(r->xdp.md) ? ctx_len : sizeof(r->xdp.md));
		struct xdp_md md = r->xdp.md;
		if (kbpf_linux_xdp_init(&r->xdp, r->buf, head + len + PKT_TAILROOM, head, len))
			return cli_error(EXIT_FAIL, "run", "--packet: cannot set up the XDP context");
		r->xdp.md.ingress_ifindex = md.ingress_ifindex ? md.ingress_ifindex : 1; /* loopback */
		r->xdp.md.rx_queue_index = md.rx_queue_index;
		r->ctx = &r->xdp;
		r->ctx_size = sizeof(r->xdp);
		return 0;
	}
	size_t off = kind == PKT_SKB_L3 ? PKT_ETH_HLEN : 0;
	struct __sk_buff md = { 0 };
	uint16_t proto;

	if (ctx_in)
		memcpy(&md, ctx_in, ctx_len < sizeof(md) ? ctx_len : sizeof(md));
	if (kbpf_linux_skb_init(&r->skb, r->buf, r->buf_size, head + off, len - off))
		return cli_error(EXIT_FAIL, "run", "--packet: cannot set up the skb context");
	uint32_t pkt_len = r->skb.md.len;
	r->skb.md = md;
	r->skb.md.len = pkt_len;
	/* eth_type_trans: the EtherType as stored, or 802.3 / 802.2 for a length field */
	proto = 0;
	if (len >= PKT_ETH_HLEN) {
		memcpy(&proto, pkt + 12, 2);
		if (((uint8_t)pkt[12] << 8 | (uint8_t)pkt[13]) < 1536)
			proto = len >= 16 && (uint8_t)pkt[14] == 0xff && (uint8_t)pkt[15] == 0xff ?
				htobe16(0x0001) : htobe16(0x0004);
	}
	r->skb.md.protocol = proto;
	if (!r->skb.md.ifindex)
		r->skb.md.ifindex = 1;
	r->ctx = &r->skb;
	r->ctx_size = sizeof(r->skb);
	return 0;
}

static void pkt_free(struct pkt_run *r)
{
	free(r->buf);
}

/* The packet as test_run returns it: from the Ethernet header (pushed back for the
 * types that saw the packet after it) to the end. */
static void pkt_out(const struct pkt_run *r, enum pkt_kind kind, const uint8_t **p, size_t *len)
{
	const uint8_t *start = kind == PKT_XDP ? r->xdp.data : kind == PKT_REUSEPORT ? r->reuse.md.data : r->skb.data;
	const uint8_t *end = kind == PKT_XDP ? r->xdp.data_end : kind == PKT_REUSEPORT ? r->reuse.md.data_end
											: r->skb.data_end;

	if (kind == PKT_SKB_L3 && start - PKT_ETH_HLEN >= r->buf)
		start -= PKT_ETH_HLEN;
	*p = start;
	*len = end > start ? (size_t)(end - start) : 0;
}

static void hex_dump(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i += 16) {
		printf("  %04zx:", i);
		for (size_t k = i; k < i + 16 && k < len; k++)
			printf(" %02x", p[k]);
		printf("\n");
	}
}

static int write_file(const char *path, const char *data, size_t len);

#define DEFAULT_PKT_LEN 14 /* ETH_HLEN */

/* Run as BPF_PROG_TEST_RUN: repeat times on the same packet and context, as Linux does;
 * print R0 of the last run, the packet and the mean duration. */
static int execute_packet(struct kbpf_prog *prog, struct run_args *a, enum pkt_kind kind,
			  const char *ctx_in, size_t ctx_len)
{
	char *pkt = NULL, err[256] = "";
	size_t pkt_len = 0;
	struct pkt_run r;
	int code;

	if (kind == PKT_NONE)
		return cli_error(EXIT_USAGE, "run", "--packet needs a networking program type (--type xdp, "
				 "sched_cls, sched_act, socket_filter, cgroup_skb, lwt_in, lwt_out, lwt_xmit, "
				 "sk_reuseport)");
	if (!a->packet_path) {
		/* an object's networking program run without --packet (ctx_for_object_prog): an
		 * Ethernet header of zeroes, the least Linux's test run takes */
		pkt_len = DEFAULT_PKT_LEN;
		pkt = calloc(1, pkt_len);
		if (!pkt)
			return cli_error(EXIT_FAIL, "run", "out of memory");
	} else if (cli_read_file("run", a->packet_path, &pkt, &pkt_len)) {
		return EXIT_FAIL;
	}
	code = pkt_setup(&r, kind, pkt, pkt_len, ctx_in, ctx_len);
	free(pkt);
	if (code)
		return code;

	struct kbpf_mem_region regions[3] = {
		{ r.ctx, r.ctx_size, KBPF_MEM_READ | KBPF_MEM_WRITE, "ctx" },
		{ r.buf, r.buf_size, KBPF_MEM_READ | KBPF_MEM_WRITE, "packet" },
		{ &r.sock, sizeof(r.sock), KBPF_MEM_READ, "socket" },
	};
	struct kbpf_run_opts ro = {
		.sz = sizeof(ro), .flags = run_flags(a), .stack_fill = (uint8_t)a->stack_fill, .regions = regions,
		.nr_regions = kind == PKT_REUSEPORT ? 3 : 2, .max_insns = a->max_insns, .err = err, .err_size = sizeof(err),
	};
	struct kbpf_run_result rr = { .sz = sizeof(rr) };
	uint64_t runs = a->repeat ? a->repeat : 1;
	int ret = 0;

	ro.args[0] = (uint64_t)(uintptr_t)r.ctx;
	for (int i = 0; i < a->nargs && i < 4; i++)
		ro.args[1 + i] = a->args[i];
	double t0 = now_ns();
	for (uint64_t i = 0; i < runs && !ret; i++)
		ret = kbpf_prog_run_opts(prog, &ro, &rr);
	double elapsed = now_ns() - t0;
	hardening_stop_reason(a, ret, err, sizeof(err));
	if (ret) {
		pkt_free(&r);
		return cli_error(EXIT_FAIL, "run", "program stopped: %s", err[0] ? err : strerror(-ret));
	}

	const uint8_t *out;
	size_t out_len;

	pkt_out(&r, kind, &out, &out_len);
	if (rjson.on) {
		jfield("retval", "%" PRId32, (int32_t)rr.retval);
		if (a->checked)
			jfield("insns_executed", "%" PRIu64, rr.insns_executed);
		if (kind == PKT_REUSEPORT)
			jfield("selected", "\"%s\"", (uint32_t)rr.retval != SK_PASS ? "drop" : r.reuse.selected_sk ? "socket" : "hash");
		code = EXIT_OK;
		if (a->packet_out && write_file(a->packet_out, (const char *)out, out_len))
			code = cli_error(EXIT_FAIL, "run", "cannot write %s", a->packet_out);
		else if (a->packet_out)
			jfield("packet_out_file", "\"%s\"", a->packet_out);
		if (!a->packet_out) {
			jfield("packet_out", "\"");
			for (size_t i = 0; i < out_len; i++)
				fprintf(rjson.f, "%02x", out[i]);
			fputc('"', rjson.f);
		}
		jfield("runs", "%" PRIu64, runs);
		jfield("duration_ns", "%.1f", elapsed / runs);
		pkt_free(&r);
		return code;
	}
	printf("retval: 0x%" PRIx64 " (%" PRId64 ")\n", rr.retval & 0xffffffffu, (int64_t)(int32_t)rr.retval);
	if (a->checked)
		printf("insns executed: %" PRIu64 "\n", rr.insns_executed);
	if (kind == PKT_REUSEPORT) /* bpf_run_sk_reuseport's result */
		printf("selected: %s\n", (uint32_t)rr.retval != SK_PASS ? "none, connection refused (SK_DROP)"
					   : r.reuse.selected_sk ? "a socket" : "none (Linux picks one by hash)");
	code = EXIT_OK;
	if (a->packet_out) {
		if (write_file(a->packet_out, (const char *)out, out_len))
			code = cli_error(EXIT_FAIL, "run", "cannot write %s", a->packet_out);
		else
			printf("packet out: %zu bytes written to %s\n", out_len, a->packet_out);
	} else {
		printf("packet out: %zu bytes\n", out_len);
		hex_dump(out, out_len);
	}
	printf("duration: %.1f ns/run (%" PRIu64 " run%s%s)\n", elapsed / runs, runs, runs == 1 ? "" : "s",
	       a->checked ? ", checked mode" : kbpf_prog_is_jited(prog) ? ", JIT" : "");
	pkt_free(&r);
	return code;
}

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	int ok = fwrite(data, 1, len, f) == len;
	ok &= fclose(f) == 0;
	return ok ? 0 : -EIO;
}

/* A syscall program of an object, as BPF_PROG_TEST_RUN runs one (Linux's
 * bpf_prog_test_run_syscall): R1 = a copy of --ctx (NULL without it), refused before the
 * run when that is shorter than what the program touches (max_ctx_offset); the context
 * as the program left it goes to --mem-out. */
static int syscall_ctx_short(struct kbpf_prog *prog, size_t ctx_len)
{
	return cli_error(EXIT_FAIL, "run", "test run refused (%s): the context has %zu bytes, the program "
			 "touches %u (max_ctx_offset; give them with --ctx FILE)", strerror(EINVAL), ctx_len,
			 kbpf_prog_max_ctx_offset(prog));
}

static int execute_syscall(struct kbpf_prog *prog, const struct run_args *a, char *ctx, size_t ctx_len)
{
	uint32_t retval = 0;
	int ret = kbpf_linux_test_run_syscall(prog, ctx, ctx_len, &retval);

	if (ret == -EINVAL && ctx_len < kbpf_prog_max_ctx_offset(prog))
		return syscall_ctx_short(prog, ctx_len);
	if (ret)
		return cli_error(EXIT_FAIL, "run", "test run failed: %s", strerror(-ret));
	if (rjson.on)
		jfield("retval", "%" PRId32, (int32_t)retval);
	else
		printf("retval: 0x%" PRIx32 " (%" PRId32 ")\n", retval, (int32_t)retval);
	if (a->mem_out && write_file(a->mem_out, ctx, ctx_len))
		return cli_error(EXIT_FAIL, "run", "cannot write %s", a->mem_out);
	return EXIT_OK;
}

/* With --jit, a program the JIT did not take runs on the interpreter: say so, with the
 * reason load logged ("program 'NAME': JIT: ..."). */
static void jit_note(const struct run_args *a, const struct kbpf_object *obj, const struct kbpf_program *p)
{
	char key[160];
	const char *log = kbpf_object_log(obj), *at;

	if (!a->jit || kbpf_prog_is_jited(kbpf_program_prog(p)))
		return;
	snprintf(key, sizeof(key), "program '%s': JIT: ", kbpf_program_name(p));
	at = strstr(log, key);
	if (at) {
		at += strlen(key) - strlen("JIT: ");
		fprintf(stderr, "kbpf run: note: %.*s\n", (int)strcspn(at, "\n"), at);
	} else {
		fprintf(stderr, "kbpf run: note: not JIT-compiled; running on the interpreter\n");
	}
}

struct ctx_size_query {
	uint32_t linux_type, size;
};

static void ctx_size_of(const struct kbpf_prog_type *t, void *arg)
{
	struct ctx_size_query *q = arg;

	if (t->linux_type == q->linux_type && t->ctx_size > q->size)
		q->size = t->ctx_size;
}

/* An object's program is verified for its type, which trusts R1 to be that type's
 * context: an unchecked run must not hand it less (R1 was NULL without --ctx, and a
 * program reading its context crashed the command). A networking type's context is made
 * from a packet (cmd_run: a default one without --packet); any other type gets a
 * context of the type's size, zeroed, with the --mem/--ctx bytes at its start. Checked
 * runs catch a bad access themselves and take the memory as given. */
static int ctx_for_object_prog(struct run_args *a, struct kbpf_host *host, uint32_t type, char **mem,
			       size_t *mem_len)
{
	struct ctx_size_query q = { type, 0 };
	char *ctx;

	if (a->checked)
		return 0; /* --arg too: R1 stays the context, the values go to R2.. */
	const struct kbpf_prog_type *ht = a->host_type ? kbpf_host_prog_type_find(host, a->host_type) : NULL;
	if (ht)
		q.size = ht->ctx_size; /* "checkout": the host's own type, no Linux type */
	else
		kbpf_host_prog_type_foreach(host, ctx_size_of, &q);
	if (!q.size || *mem_len >= q.size)
		return 0;
	ctx = calloc(1, q.size);
	if (!ctx)
		return cli_error(EXIT_FAIL, "run", "out of memory");
	if (*mem_len)
		memcpy(ctx, *mem, *mem_len);
	free(*mem);
	*mem = ctx;
	*mem_len = q.size;
	if (!a->mem_path && !a->mem_hex)
		a->ctx_path = a->ctx_path ? a->ctx_path : "(zeroed)"; /* R1 = the context, R2 = 0 */
	return 0;
}

/* raw_tracepoint.w: context slot 0 is the tracepoint's buffer, a pointer the command line
 * cannot give (a zeroed or --ctx slot crashed the command). An unchecked run gets a
 * zeroed buffer of the bytes the verified program reaches (kbpf_prog_max_tp_access, what
 * kbpf_linux_raw_tp_writable_run requires) in slot 0; the other slots are as for raw_tp.
 * *buf: to free after the run. */
static int tp_buffer_for_object_prog(const struct run_args *a, const struct kbpf_prog *prog, uint32_t type, char *mem,
				     size_t mem_len, void **buf)
{
	uint64_t addr;

	*buf = NULL;
	if (type != BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE || a->checked || a->nargs || mem_len < sizeof(addr))
		return 0;
	*buf = calloc(1, kbpf_prog_max_tp_access(prog) + 1);
	if (!*buf)
		return cli_error(EXIT_FAIL, "run", "out of memory");
	addr = (uint64_t)(uintptr_t)*buf;
	memcpy(mem, &addr, sizeof(addr));
	return 0;
}

/* Whether p has a BTF-typed context (struct_ops, fentry, fexit…: the arguments of a host
 * BTF function) with a pointer in it, which the verifier lets the program dereference:
 * the command line cannot make the host objects such a slot points to. */
static bool ctx_holds_host_pointers(struct kbpf_object *obj, struct kbpf_program *p, const struct kbpf_host *host)
{
	const struct btf *btf = kbpf_host_btf(host);
	const char *prog_type = NULL, *member = NULL, *sec = kbpf_program_section_name(p);
	uint32_t id = 0;

	if (!btf)
		return false;
	if (kbpf_program_struct_ops_attach(obj, p, &prog_type, &id, &member) || !prog_type)
		if (kbpf_program_tracing_attach(obj, p, &prog_type, &id) || !prog_type)
			return false;
	const struct btf_type *t = kbpf_btf_skip_mods(btf, id, NULL);
	for (int depth = 0; t && depth < 4 && (btf_is_ptr(t) || btf_is_func(t)); depth++)
		t = kbpf_btf_skip_mods(btf, t->type, NULL);
	if (!t || !btf_is_func_proto(t))
		return false;
	const struct btf_param *args = btf_params(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *at = kbpf_btf_skip_mods(btf, args[i].type, NULL);
		if (at && btf_is_ptr(at))
			return true;
	}
	/* fexit/fmod_ret read the return value's slot too */
	const struct btf_type *rt = kbpf_btf_skip_mods(btf, t->type, NULL);
	return rt && btf_is_ptr(rt) && sec && (!strncmp(sec, "fexit", 5) || !strncmp(sec, "fmod_ret", 8));
}

/* A program without a Linux type whose section names a host type ("checkout"): its
 * context is that type's. */
static void set_host_type(struct run_args *a, struct kbpf_host *host, const struct kbpf_program *p, uint32_t type)
{
	const char *sec = kbpf_program_section_name(p);

	if (sec && sec[0] == '?')
		sec++;
	a->host_type = !type && sec && kbpf_host_prog_type_find(host, sec) ? sec : NULL;
}

/* FILE.o [PROG]: the object's program, loaded on the CLI host. */
static int load_object_prog(struct run_args *a, struct kbpf_host **host, struct kbpf_object **obj,
			    struct kbpf_prog **prog, uint32_t *type, bool *host_ptrs)
{
	struct kbpf_program *p = NULL, *only = NULL;
	int loaded = 0, ret;

	*host = cli_host_new("run", &a->host);
	if (!*host)
		return EXIT_FAIL;
	struct cli_open_opts oo = { .load = true, .prog = a->obj_prog, .jit = a->jit, .harden = a->harden,
				    .run_budget = a->run_budget, .caps = a->host.caps, .prog_flags = a->host.prog_flags,
				    .trusted_unverified = a->host.trusted_unverified };
	ret = cli_object_open_with("run", a->prog_path, *host, &oo, obj);
	if (ret)
		return ret;
	if (a->obj_prog) {
		p = kbpf_object_find_program(*obj, a->obj_prog);
		if (!p)
			return cli_error(EXIT_FAIL, "run", "%s: no program '%s'", a->prog_path, a->obj_prog);
		*prog = kbpf_program_prog(p);
		*type = kbpf_program_type(p);
		set_host_type(a, *host, p, *type);
		*host_ptrs = ctx_holds_host_pointers(*obj, p, *host);
		jit_note(a, *obj, p);
		return 0;
	}
	while ((p = kbpf_object_next_program(*obj, p))) {
		if (kbpf_program_prog(p)) {
			only = p;
			loaded++;
		}
	}
	if (loaded != 1)
		return cli_error(EXIT_USAGE, "run", "%s: %d programs loaded: name one (see 'kbpf prog list %s')",
				 a->prog_path, loaded, a->prog_path);
	*prog = kbpf_program_prog(only);
	*type = kbpf_program_type(only);
	set_host_type(a, *host, only, *type);
	*host_ptrs = ctx_holds_host_pointers(*obj, only, *host);
	jit_note(a, *obj, only);
	return 0;
}

/* An object's program on a context of its type's size (the --mem/--ctx bytes at its
 * start), --mem-out written after. */
static int run_object_prog(struct run_args *a, struct kbpf_host *host, struct kbpf_prog *prog, uint32_t type,
			   char **mem, size_t *mem_len)
{
	void *tp_buf = NULL;
	int code = ctx_for_object_prog(a, host, type, mem, mem_len);

	if (!code)
		code = tp_buffer_for_object_prog(a, prog, type, *mem, *mem_len, &tp_buf);
	if (!code)
		code = execute(prog, a, *mem, *mem_len);
	free(tp_buf);
	if (code == EXIT_OK && a->mem_out && write_file(a->mem_out, *mem, *mem_len))
		code = cli_error(EXIT_FAIL, "run", "cannot write %s", a->mem_out);
	return code;
}

static int run_main(int argc, char **argv);

int cmd_run(int argc, char **argv)
{
	int code = run_main(argc, argv);

	if (rjson.f) {
		fclose(rjson.f);
		if (code == EXIT_OK)
			printf("{%s}\n", rjson.buf);
		free(rjson.buf);
		rjson.f = NULL;
	}
	return code;
}

static int run_main(int argc, char **argv)
{
	struct run_args a = { .dialect = KBPF_ASM_AUTO, .stack_fill = -1 };
	struct bpf_insn *insns = NULL;
	struct kbpf_prog *prog = NULL;
	char *mem = NULL, log[512] = "";
	size_t cnt, mem_len = 0;
	int ret = parse_run_args(argc, argv, &a);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (rjson.on && !(rjson.f = open_memstream(&rjson.buf, &rjson.size)))
		return cli_error(EXIT_FAIL, "run", "out of memory");
	if (a.mem_hex && cli_parse_hex_bytes(a.mem_hex, &mem, &mem_len))
		return cli_error(EXIT_USAGE, "run", "--mem-hex: expected hex byte pairs, got '%s'", a.mem_hex);
	if (a.type && pkt_kind_of_name(a.type) == PKT_NONE && kbpf_section_prog_type(a.type))
		a.type = cli_prog_type_name(kbpf_section_prog_type(a.type)); /* libbpf's SEC() name: "socket" */
	if (a.type && pkt_kind_of_name(a.type) == PKT_NONE)
		return cli_error(EXIT_USAGE, "run", "--type: '%s' has no packet (xdp, sched_cls, sched_act, "
				 "socket_filter, cgroup_skb, lwt_in, lwt_out, lwt_xmit, sk_reuseport)", a.type);
	if ((a.mem_path || a.ctx_path) && cli_read_file("run", a.mem_path ? a.mem_path : a.ctx_path, &mem, &mem_len))
		return EXIT_FAIL;
	if (cli_is_elf_file(a.prog_path)) {
		struct kbpf_host *host = NULL;

		struct kbpf_object *obj = NULL;
		uint32_t type = 0;
		bool host_ptrs = false;
		int code = load_object_prog(&a, &host, &obj, &prog, &type, &host_ptrs);
		/* --timers: the timers the run arms fire on a manual clock afterwards */
		if (!code && a.timers && kbpf_host_timers_manual_clock(host, true))
			code = cli_error(EXIT_FAIL, "run", "--timers: cannot set the manual clock");
		/* what the run writes with bpf_perf_event_output, printed after it */
		struct cli_perf *perf = code ? NULL : cli_perf_open("run", obj);
		if (!code && a.packet_path) {
			code = execute_packet(prog, &a, a.type ? pkt_kind_of_name(a.type) : pkt_kind_of_linux(type),
					      mem, mem_len);
		} else if (!code && type == BPF_PROG_TYPE_SYSCALL && !a.checked && !a.mem_path && !a.mem_hex &&
			   !a.nargs) {
			/* Linux's syscall test run has no repeat: --repeat times the run below on
			 * the --ctx bytes (zero-padded), under the same max_ctx_offset rule */
			if (!a.repeat)
				code = execute_syscall(prog, &a, mem, mem_len);
			else if (mem_len < kbpf_prog_max_ctx_offset(prog))
				code = syscall_ctx_short(prog, mem_len);
			else
				code = run_object_prog(&a, host, prog, type, &mem, &mem_len);
		} else if (!code && pkt_kind_of_linux(type) != PKT_NONE && !a.checked) {
			/* a networking program's context is made from a packet: a default one */
			code = a.mem_path || a.mem_hex || a.nargs
				       ? cli_error(EXIT_USAGE, "run", "%s is a %s program: its context is made from "
						   "a packet; give --packet FILE (and --ctx FILE for its %s fields), or "
						   "--checked to run it on raw memory",
						   a.obj_prog ? a.obj_prog : "the program", cli_prog_type_name(type),
						   type == BPF_PROG_TYPE_XDP ? "xdp_md" : "__sk_buff")
				       : execute_packet(prog, &a, pkt_kind_of_linux(type), mem, mem_len);
		} else if (!code && host_ptrs && !a.checked) {
			/* a zeroed or given slot would be dereferenced (SIGSEGV before) */
			code = cli_error(EXIT_USAGE, "run", "%s: its context holds pointers to host objects (the "
					 "arguments of its BTF function), which kbpf run cannot make; give --checked",
					 a.obj_prog ? a.obj_prog : "the program");
		} else if (!code) {
			code = run_object_prog(&a, host, prog, type, &mem, &mem_len);
		}
		if (code == EXIT_OK && a.timers) {
			int n = kbpf_host_timers_advance(host, a.timers_ns);
			if (rjson.on)
				jfield("timers", "{\"ran\": %d, \"ns\": %llu, \"armed\": %d}", n,
				       (unsigned long long)a.timers_ns, kbpf_host_timers_armed(host));
			else
			printf("timers: %d callback%s ran in %llu ns, %d still armed\n", n, n == 1 ? "" : "s",
			       (unsigned long long)a.timers_ns, kbpf_host_timers_armed(host));
		}
		if (code == EXIT_OK && rjson.on) {
			if (a.show_globals) {
				jfield("globals", "%s", "");
				cli_globals_json(rjson.f, obj);
			}
		} else if (code == EXIT_OK) {
			cli_perf_print(perf);
			cli_stack_maps_print(obj, prog);
			if (a.show_globals)
				cli_globals_show(obj);
		}
		cli_perf_close(perf);
		kbpf_object_close(obj);
		cli_host_free(host);
		free(mem);
		return code;
	}
	if (cli_load_program("run", a.prog_path, a.dialect, &insns, &cnt)) {
		free(mem);
		return EXIT_FAIL;
	}

	/* --packet: the program may call Linux's helpers (skb_load_bytes, xdp_adjust_head…) */
	struct kbpf_host *host = a.packet_path ? cli_host_new("run", &a.host) : NULL;
	if (a.packet_path && !host) {
		free(insns);
		free(mem);
		return EXIT_FAIL;
	}
	/* With a program type the program is verified, as BPF_PROG_TEST_RUN's are, and the
	 * verifier converts its ctx accesses (data/data_end become the real pointers). */
	const char *type = a.packet_path && a.type ? (strcmp(a.type, "tc") ? a.type : "sched_cls") : NULL;
	/* Unverified, a raw program runs only confined (--checked: every access checked,
	 * no helpers) or when the user vouches for it */
	if (!type && !a.checked && !a.host.trusted_unverified && !a.packet_path) {
		kbpf_host_free(host);
		free(insns);
		free(mem);
		return cli_error(EXIT_FAIL, "run",
				 "%s: not verified (a raw program is verified only with --packet and --type): "
				 "refusing to run it unchecked; give --checked to run it confined, or "
				 "--trusted-unverified for code you trust", a.prog_path);
	}
	struct kbpf_prog_opts po = { .sz = sizeof(po), .name = a.prog_path, .log_buf = log, .log_size = sizeof(log),
				     .jit = a.jit, .host = host, .prog_type = type, .license = "GPL",
				     /* checked or vouched for (refused above otherwise) */
				     .trusted_unverified = !type,
				     .harden = a.harden, .run_budget = a.run_budget };
	ret = kbpf_prog_create(insns, cnt, &po, &prog);
	free(insns);
	if (ret) {
		cli_host_free(host);
		free(mem);
		return cli_error(EXIT_FAIL, "run", "%s: %.*s", a.prog_path, log[0] ? (int)strcspn(log, "\n") : 512,
				 log[0] ? log : strerror(-ret)); /* one line: the verifier's message */
	}
	if (a.jit && !kbpf_prog_is_jited(prog))
		fprintf(stderr, "kbpf run: note: %s\n", log[0] ? log : "not JIT-compiled; running on the interpreter");
	int code = a.packet_path ? execute_packet(prog, &a, pkt_kind_of_name(a.type ? a.type : ""), mem, mem_len)
				 : execute(prog, &a, mem, mem_len);
	if (code == EXIT_OK && a.mem_out && write_file(a.mem_out, mem, mem_len))
		code = cli_error(EXIT_FAIL, "run", "cannot write %s", a.mem_out);
	kbpf_prog_free(prog);
	cli_host_free(host);
	free(mem);
	return code;
}
