// SPDX-License-Identifier: MIT
/* pgo collect: options -> collect_run() -> the benchmark's exit status. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "collect/callgraph.h"
#include "collect/collect.h"
#include "collect/offcpu.h"
#include "lib/alloc.h"
#include "lib/parse.h"
#include "lib/report.h"
#include "symbolize/fpcensus.h"
#include "symbolize/unwindhook.h"

static const char usage_line[] =
	"usage: pgo collect [-F HZ] [-e EVENT] [-g | --call-graph auto|fp|dwarf-unwound[,SIZE]|dwarf[,SIZE]|none]\n"
	"                   [-r N] [-o FILE]\n"
	"                   [-p PID[,PID...] | -a --binary PATH | --cgroup PATH] [--duration TIME]\n"
	"                   [-z | --compression-level N]\n"
	"                   [--[no-]off-cpu] [--off-cpu-stacks all|user|kernel|none] [--off-cpu-unwind dwarf|fp]\n"
	"                   [--no-off-cpu-callers]\n"
	"                   [--off-cpu-min TIME] [--off-cpu-sample N] [-q] [-v] [--] [CMD [ARGS]]";

static void help(void)
{
	printf("%s\n\n"
	       "Run CMD under a sampling profiler and write a perf.data file that perf report,\n"
	       "perf script and pgo convert read. Every thread and child process of CMD is\n"
	       "followed. pgo collect exits with CMD's own status (128+N if killed by signal N).\n"
	       "With -p, -a --binary or --cgroup it attaches to running processes instead (a live\n"
	       "service) for --duration or until SIGINT/SIGTERM, and leaves them running.\n\n"
	       "options:\n"
	       "  -F, --freq HZ          samples per second of CPU time (default 999)\n"
	       "  -e, --event EVENT      auto (default: cycles if the CPU has a PMU, else task-clock),\n"
	       "                         cycles, task-clock or cpu-clock\n"
	       "  -g                     record frame-pointer call stacks (--call-graph fp)\n"
	       "      --call-graph MODE  auto (default): fp if CMD's binary keeps frame pointers,\n"
	       "                         else dwarf-unwound. fp: the kernel walks frame pointers;\n"
	       "                         frames it skips in code without them (libc's) are put back\n"
	       "                         from the CFI of a 2 KiB stack copy. dwarf-unwound[,SIZE]:\n"
	       "                         SIZE bytes of user stack (default 16384) unwound with the\n"
	       "                         binaries' CFI while recording. Both write plain call chains\n"
	       "                         (~140 B/sample). dwarf[,SIZE]: the registers and SIZE bytes\n"
	       "                         of stack (default %u) go into the file, as perf record\n"
	       "                         --call-graph dwarf writes them; none: IPs only\n"
	       "  -r, --repeat N         run CMD N times into one file (default 1); each run is its own\n"
	       "                         process tree and stays separable; stops at the first failing run\n"
	       "  -o, --output FILE      output file (default pgo.data); written whole or not at all\n"
	       "  -p, --pid PID[,PID...] attach to these running processes: every thread, and the\n"
	       "                         threads and children they start while recording; ends\n"
	       "                         when they have all exited\n"
	       "  -a, --all-processes    with --binary PATH: every process that runs PATH, those\n"
	       "                         running now and those started (exec'd, forked) while\n"
	       "                         recording (events on every CPU, filtered in BPF and while\n"
	       "                         draining)\n"
	       "      --binary PATH      the executable -a looks for\n"
	       "      --cgroup PATH      every task of this cgroup v2 (a directory, or a path under\n"
	       "                         /sys/fs/cgroup), as perf record -G does\n"
	       "      --duration TIME    attach for TIME (30s, 2m, 500ms; plain number: seconds);\n"
	       "                         without it, until SIGINT/SIGTERM\n"
	       "  -z                     compress the records with zstd, as perf record -z does\n"
	       "                         (perf report and pgo convert read it); dwarf stacks\n"
	       "                         shrink about 15x\n"
	       "      --compression-level N  the same at zstd level N (1 = -z, fastest .. 22)\n"
	       COLLECT_OFFCPU_OPTIONS_HELP
	       "  -q, --quiet            no summary line\n"
	       "  -v, --verbose          more diagnostics\n"
	       "  -h, --help             this text\n\n"
	       "SIGINT and SIGTERM are passed on to CMD; what was recorded is still written.\n"
	       "Attached, they end the recording (the processes keep running); the file is whole.\n"
	       "Attaching needs root or CAP_PERFMON, or for -p a process of your own user with\n"
	       "kernel.perf_event_paranoid <= 2 (-a and --cgroup: <= 0); off-CPU needs root.\n"
	       "Exit codes: CMD's status (attached: 0); 2 on errors (command not found,\n"
	       "perf_event_open refused, no such process, output not writable, bad option values)\n"
	       "with no output file; 64 on usage errors.\n\n"
	       "EXAMPLES\n"
	       "  pgo collect ./bench                    record ./bench into pgo.data (999 Hz, call stacks)\n"
	       "  pgo collect -r 5 -o base.data ./bench  five runs in one file, for pgo gate\n"
	       "  pgo collect -F 4999 --call-graph none -- ./bench --size 10\n"
	       "  pgo collect --call-graph dwarf,16384 ./bench   deep stacks in a -O2 build\n"
	       "  pgo-collect ./bench && perf report -i pgo.data\n"
	       "  pgo collect --off-cpu --off-cpu-stacks user ./server-bench   CPU and waiting time\n"
	       "  pgo collect -p $(pidof server) --duration 30s -o live.data   a live service\n"
	       "  pgo collect -a --binary /usr/sbin/nginx --duration 2m       every nginx worker\n",
	       usage_line, COLLECT_DWARF_STACK_DEFAULT);
}

static int usage_error(const char *what, const char *arg)
{
	pgo_error("%s%s%s%s", what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	fprintf(stderr, "%s\n", usage_line);
	return PGO_EXIT_USAGE;
}

enum {
	OPT_CALL_GRAPH = 0x100, OPT_COMPRESSION_LEVEL, OPT_BINARY, OPT_CGROUP, OPT_DURATION,
	OPT_OFFCPU_BASE, /* + index in collect_offcpu_optnames */
};
#define OFFCPU_OPTS_MAX 16

#define MAX_PIDS 1024

struct collect_cmd {
	struct collect_opts o;
	struct collect_offcpu_request req;
	int verbose, quiet;
	struct collect_attach at;
	int all;                  /* -a */
	int has_duration;
	pid_t pids[MAX_PIDS];
	char binary[4096], cgroup[4096], exe[4096];
};

/* The long options: ours, then the off-CPU ones from their table (collect/offcpu.h). */
static void build_longopts(struct option *longopts, size_t max)
{
	static const struct option fixed[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "freq", required_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'e' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "repeat", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "compression-level", required_argument, NULL, OPT_COMPRESSION_LEVEL },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-processes", no_argument, NULL, 'a' },
		{ "binary", required_argument, NULL, OPT_BINARY },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
	};
	size_t n = PGO_ARRAY_SIZE(fixed), k;

	memcpy(longopts, fixed, sizeof(fixed));
	for (k = 0; collect_offcpu_optnames[k].name; k++) {
		if (k >= OFFCPU_OPTS_MAX || n + 1 >= max)
			PGO_BUG("too many off-CPU options");
		longopts[n++] = (struct option){ collect_offcpu_optnames[k].name,
						 collect_offcpu_optnames[k].has_value ? required_argument
										      : no_argument,
						 NULL, OPT_OFFCPU_BASE + (int)k };
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* -p's list: "PID[,PID...]", appended to cc->at. 0 or -1 after reporting. */
static int parse_pids(struct collect_cmd *cc, const char *val)
{
	const char *p = val;

	while (*p) {
		char num[32];
		const char *e = strchrnul(p, ',');
		uint64_t v;

		if ((size_t)(e - p) >= sizeof(num) || e == p)
			return pgo_error("invalid process id list '%s' for -p (PID[,PID...])", val);
		memcpy(num, p, (size_t)(e - p));
		num[e - p] = '\0';
		if (pgo_parse_u64_range(num, 1, 0x3fffffff, &v))
			return pgo_error("invalid process id '%s' for -p", num);
		if (cc->at.nr_pids >= MAX_PIDS)
			return pgo_error("too many processes for -p (at most %d)", MAX_PIDS);
		cc->pids[cc->at.nr_pids++] = (pid_t)v;
		p = *e ? e + 1 : e;
	}
	if (!cc->at.nr_pids)
		return pgo_error("no process id given to -p");
	cc->at.pids = cc->pids;
	return 0;
}

/* --duration: 30s, 2m, 1h, 500ms, or plain seconds. 0 or -1 after reporting. */
static int parse_duration(const char *val, uint64_t *ns)
{
	size_t n = strlen(val);
	uint64_t unit = 0, v;
	char num[64];

	if (n && n < sizeof(num) && (val[n - 1] == 'm' || val[n - 1] == 'h') &&
	    (n < 2 || val[n - 2] != 'm')) {
		unit = val[n - 1] == 'm' ? 60 : 3600;
		memcpy(num, val, n - 1);
		num[n - 1] = '\0';
		if (!pgo_parse_u64_range(num, 1, 1000000, &v)) {
			*ns = v * unit * 1000000000ULL;
			return 0;
		}
	} else if (!pgo_parse_duration_ns(val, 1000000000ULL, ns) && *ns) {
		return 0;
	}
	return pgo_error("invalid duration '%s' for --duration (e.g. 30s, 2m, 500ms, or seconds)", val);
}

/* --cgroup PATH: a directory as given, or under /sys/fs/cgroup. */
static int resolve_cgroup(struct collect_cmd *cc, const char *val)
{
	struct stat st;

	if (!*val)
		return pgo_error("empty cgroup for --cgroup");
	if (val[0] == '/' && !stat(val, &st) && S_ISDIR(st.st_mode)) {
		snprintf(cc->cgroup, sizeof(cc->cgroup), "%s", val);
	} else {
		snprintf(cc->cgroup, sizeof(cc->cgroup), "/sys/fs/cgroup/%s", val + (val[0] == '/'));
		if (stat(cc->cgroup, &st) || !S_ISDIR(st.st_mode))
			return pgo_error("no cgroup '%s' (neither a directory nor under /sys/fs/cgroup)", val);
	}
	cc->at.cgroup = cc->cgroup;
	return 0;
}

/* One option c (getopt_long's value) with its argument: 0, or an exit code. */
static int apply_option(struct collect_cmd *cc, int c, const char *val)
{
	struct collect_opts *o = &cc->o;
	uint64_t v;

	switch (c) {
	case 'p':
		if (parse_pids(cc, val))
			return PGO_EXIT_USAGE;
		break;
	case 'a':
		cc->all = 1;
		break;
	case OPT_BINARY:
		if (!realpath(val, cc->binary)) {
			pgo_error_errno("cannot find the binary '%s' for --binary", val);
			return PGO_EXIT_ERROR;
		}
		cc->at.binary = cc->binary;
		break;
	case OPT_CGROUP:
		if (resolve_cgroup(cc, val))
			return PGO_EXIT_ERROR;
		break;
	case OPT_DURATION:
		if (parse_duration(val, &cc->at.duration_ns))
			return PGO_EXIT_USAGE;
		cc->has_duration = 1;
		break;
	case 'F':
		if (pgo_parse_u64_range(val, 1, 100000, &v)) {
			pgo_error("invalid sampling rate '%s' for -F (a whole number of Hz, 1..100000)", val);
			return PGO_EXIT_USAGE;
		}
		o->freq = (unsigned int)v;
		break;
	case 'e':
		o->event = val;
		break;
	case 'g':
		o->callgraph = COLLECT_CALLGRAPH_FP;
		break;
	case OPT_CALL_GRAPH:
		if (collect_callgraph_parse(val, &o->callgraph, &o->stack_size))
			return PGO_EXIT_USAGE;
		break;
	case 'r':
		if (pgo_parse_u64_range(val, 1, 100000, &v)) {
			pgo_error("invalid run count '%s' for -r (a whole number, 1..100000)", val);
			return PGO_EXIT_USAGE;
		}
		o->runs = (unsigned int)v;
		break;
	case 'o':
		if (!*val) {
			pgo_error("empty output file name");
			return PGO_EXIT_USAGE;
		}
		o->output = val;
		break;
	case 'z':
		o->compress_level = 1;
		break;
	case OPT_COMPRESSION_LEVEL:
		if (pgo_parse_u64_range(val, 1, 22, &v)) {
			pgo_error("invalid zstd level '%s' for --compression-level (1..22)", val);
			return PGO_EXIT_USAGE;
		}
		o->compress_level = (int)v;
		break;
	case 'q':
		cc->quiet = 1;
		break;
	case 'v':
		cc->verbose++;
		break;
	default:
		if (collect_offcpu_option(&cc->req, collect_offcpu_optnames[c - OPT_OFFCPU_BASE].name,
					  val) < 0)
			return PGO_EXIT_USAGE;
		break;
	}
	return 0;
}

/*
 * The options before CMD (the first argument that is not an option, or the one after
 * "--"): *cmd_at is its index. Returns 0, or an exit code (--help: PGO_EXIT_OK with
 * *cmd_at left at -1).
 */
static int parse_args(int argc, char **argv, struct collect_cmd *cc, int *cmd_at)
{
	struct option longopts[24 + OFFCPU_OPTS_MAX];
	int c, at, err;

	build_longopts(longopts, PGO_ARRAY_SIZE(longopts));
	*cmd_at = -1;
	optind = 1;
	opterr = 0; /* our own messages, in the form of every other error */
	/* "+": the options end at CMD, whose own options are its own */
	for (at = optind; (c = getopt_long(argc, argv, "+:hF:e:gr:o:zqvp:a", longopts, NULL)) != -1;
	     at = optind) {
		if (c == 'h') {
			help();
			return PGO_EXIT_OK;
		}
		if (c == ':')
			return usage_error("missing value for option", argv[at]);
		if (c == '?' || (c >= OPT_OFFCPU_BASE && c - OPT_OFFCPU_BASE >= OFFCPU_OPTS_MAX))
			return usage_error("unknown option", argv[at]);
		err = apply_option(cc, c, optarg);
		if (err)
			return err;
	}
	*cmd_at = optind;
	return 0;
}

/* What the recording holds: runs, samples, what was lost. */
static void report_run(const struct collect_opts *o, const struct collect_result *r)
{
	if (r->lost || r->lost_samples)
		pgo_warn("lost %llu records and %llu samples (the profile under-counts; try a lower -F)",
			 (unsigned long long)r->lost, (unsigned long long)r->lost_samples);
	if (r->throttled)
		pgo_warn("the kernel throttled sampling %llu times (see kernel.perf_cpu_time_max_percent)",
			 (unsigned long long)r->throttled);
	if (o->attach) {
		pgo_info("attached to %u process%s (%u exited while recording)%s; detached", r->attached,
			 r->attached == 1 ? "" : "es", r->attached_exited,
			 r->interrupted ? ", ended by a signal" : "");
	} else if (r->interrupted) {
		pgo_info("interrupted; kept what was recorded");
	}
	/* attached to -a or a cgroup: the processes' CPU time is not known */
	if (o->attach && !o->attach->pids)
		pgo_info("%llu samples, %llu lost, %s @ %u Hz, %.2f s -> %s",
			 (unsigned long long)r->samples, (unsigned long long)(r->lost + r->lost_samples),
			 r->event, r->freq, r->duration_ns / 1e9, o->output ? o->output : "pgo.data");
	else
		pgo_info("%u run%s, %llu samples, %llu lost, %s @ %u Hz, %.2f s, %.2f s CPU -> %s", r->runs,
			 r->runs == 1 ? "" : "s", (unsigned long long)r->samples,
			 (unsigned long long)(r->lost + r->lost_samples), r->event, r->freq,
			 r->duration_ns / 1e9, r->cpu_ns / 1e9, o->output ? o->output : "pgo.data");
}

/* The output file: its size against what -z would make of it, or the compression ratio. */
static void report_file(const struct collect_opts *o, const struct collect_result *r)
{
	if (!o->compress_level) {
		struct stat sb;

		/* DWARF stack copies make big files; perf record -z's format shrinks them ~45x */
		if (!stat(o->output ? o->output : "pgo.data", &sb) && sb.st_size >= (256 << 20))
			pgo_info("%s is %.0f MB: -z would compress it (about 45x for DWARF stacks)",
				 o->output ? o->output : "pgo.data", sb.st_size / 1048576.0);
	} else {
		struct stat sb;

		if (!stat(o->output ? o->output : "pgo.data", &sb))
			pgo_info("zstd level %d: %.1f MB of records in a %.1f %s file (%.1fx)",
				 o->compress_level, r->raw_bytes / 1048576.0,
				 sb.st_size < 1048576 ? sb.st_size / 1024.0 : sb.st_size / 1048576.0,
				 sb.st_size < 1048576 ? "KB" : "MB",
				 sb.st_size ? (double)r->raw_bytes / (double)sb.st_size : 0.0);
	}
}

static void report_callgraph(const struct collect_result *r)
{
	if (r->callgraph == COLLECT_CALLGRAPH_DWARF)
		pgo_info("call stacks: dwarf, %u bytes of user stack per sample%s%s%s", r->stack_size,
			 r->callgraph_why[0] ? " (auto: " : "", r->callgraph_why, r->callgraph_why[0] ? ")" : "");
	else
		pgo_info("call stacks: %s%s%s%s", collect_callgraph_name(r->callgraph),
			 r->callgraph_why[0] ? " (auto: " : "", r->callgraph_why, r->callgraph_why[0] ? ")" : "");
}

/* What the collector's unwinding did (collect/collect.h struct collect_unwind_stats). */
static void report_unwind(const struct collect_result *r)
{
	const struct collect_unwind_stats *u = &r->unwind;
	uint64_t cut = u->truncated_stack + u->truncated_cfi + u->too_deep;

	if (r->callgraph == COLLECT_CALLGRAPH_FP)
		pgo_info("fp stacks: %llu samples, %llu kept as the kernel walked them, %llu repaired "
			 "(%llu frames put back where code keeps no frame pointer), %llu cut short of "
			 "the kernel's chain (%llu past the %u-byte stack copy, %llu without usable "
			 "CFI: kernel chain kept at the IP for %llu); %.3f s CPU unwinding",
			 (unsigned long long)u->samples, (unsigned long long)u->fp_kept,
			 (unsigned long long)u->fp_repaired, (unsigned long long)u->fp_frames_added,
			 (unsigned long long)(cut - u->fp_no_cfi), (unsigned long long)u->truncated_stack,
			 r->stack_size, (unsigned long long)(u->truncated_cfi - u->fp_no_cfi),
			 (unsigned long long)u->fp_no_cfi, u->ns / 1e9);
	else
		/* a warning when more than 5% were cut (and not 2 stacks of a 2-sample run) */
		(cut * 20 > u->samples && cut >= 10 ? pgo_warn : pgo_info)(
			"unwound %llu user stacks while recording: %llu complete, %llu truncated "
			"(%llu past the %u-byte stack copy: use --call-graph dwarf-unwound,SIZE; "
			"%llu without usable CFI; %llu deeper than 127 frames), %llu without user "
			"registers; %.3f s CPU unwinding", (unsigned long long)u->samples,
			(unsigned long long)u->complete, (unsigned long long)cut,
			(unsigned long long)u->truncated_stack, r->stack_size,
			(unsigned long long)u->truncated_cfi, (unsigned long long)u->too_deep,
			(unsigned long long)u->no_regs, u->ns / 1e9);
}

/* How far the BPF program's DWARF unwinder took the off-CPU user stacks, and why not further. */
static void report_offcpu_unwind(const struct collect_offcpu_stats *st)
{
	static const char *const end_why[OFFCPU_UNW_NR] = {
		"complete", "no mapping", "JIT/anonymous", "no unwind table",
		"no FDE", "unsupported CFI", "rbp lost", "unreadable stack",
		"too deep", "bad frame",
	};
	char ends[512];
	size_t w = 0;
	uint64_t all = 0;
	int k;

	ends[0] = '\0';
	for (k = 0; k < OFFCPU_UNW_NR; k++)
		all += st->k.unwind_end[k];
	for (k = 1; k < OFFCPU_UNW_NR && w < sizeof(ends); k++)
		if (st->k.unwind_end[k])
			w += (size_t)snprintf(ends + w, sizeof(ends) - w, ", %llu %s",
					      (unsigned long long)st->k.unwind_end[k], end_why[k]);
	pgo_info("off-CPU user stacks: dwarf, %llu of %llu complete; truncated: %llu%s%s; "
		 "%llu unwind tables (%llu rows), %llu files without one, %llu that did not fit; "
		 "%llu stacks lost to a full map",
		 (unsigned long long)st->k.unwind_end[0], (unsigned long long)all,
		 (unsigned long long)(all - st->k.unwind_end[0]), w ? "" : " ", ends,
		 (unsigned long long)st->tables, (unsigned long long)st->table_rows,
		 (unsigned long long)st->tables_failed, (unsigned long long)st->tables_full,
		 (unsigned long long)st->k.ustacks_full);
}

/* The off-CPU recorder: what it followed, lost and cost. */
static void report_offcpu(const struct collect_offcpu_stats *st)
{
	pgo_info("off-CPU: %.2f s in %llu samples; %llu switches followed (%llu sampled out), %llu intervals, "
		 "%llu under --off-cpu-min, libc callers recovered %llu, %llu closed without a switch-in; "
		 "lost: %llu user stacks, "
		 "%llu kernel stacks, %llu map-full, %llu no storage, %llu unfollowed forks%s",
		 st->total_ns / 1e9, (unsigned long long)st->samples, (unsigned long long)st->k.switches,
		 (unsigned long long)st->k.sampled_out, (unsigned long long)st->k.recorded,
		 (unsigned long long)st->k.short_blocks, (unsigned long long)st->k.callers_found,
		 (unsigned long long)st->k.switchins_unseen,
		 (unsigned long long)st->k.ustack_dropped, (unsigned long long)st->k.kstack_dropped,
		 (unsigned long long)st->k.map_full, (unsigned long long)st->k.storage_failed,
		 (unsigned long long)st->k.tgid_full, st->raw_tp ? " (raw_tp fallback)" : "");
	if (st->dwarf)
		report_offcpu_unwind(st);
	/* the program runs on every switch of the machine; followed ones cost the most */
	if (st->prog_run_cnt)
		pgo_info("off-CPU cost: %.1f ms of CPU in the BPF program, %llu context switches "
			 "machine-wide at %.0f ns each, %llu of them followed",
			 st->prog_run_ns / 1e6, (unsigned long long)st->prog_run_cnt,
			 (double)st->prog_run_ns / (double)st->prog_run_cnt,
			 (unsigned long long)st->k.switches);
	if (st->k.map_full || st->k.storage_failed || st->k.tgid_full)
		pgo_warn("off-CPU time was lost (%llu intervals): the profile under-counts waiting",
			 (unsigned long long)(st->k.map_full + st->k.storage_failed));
}

/* The main executable of the first process in the cgroup, or NULL. */
static const char *cgroup_exe(struct collect_cmd *cc)
{
	char path[4200];
	FILE *fp;
	long pid;
	ssize_t n = -1;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cc->cgroup);
	fp = fopen(path, "re");
	if (!fp)
		return NULL;
	while (n <= 0 && fscanf(fp, "%ld", &pid) == 1) {
		snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
		n = readlink(path, cc->exe, sizeof(cc->exe) - 1);
	}
	fclose(fp);
	if (n <= 0)
		return NULL;
	cc->exe[n] = '\0';
	return cc->exe;
}

/*
 * The attach options agree with each other and with CMD (nr_args arguments follow the
 * options): one target, no command; o->attach set. 0 or an exit code.
 */
static int check_attach(struct collect_cmd *cc, int nr_args)
{
	int targets = !!cc->at.nr_pids + !!cc->at.binary + !!cc->at.cgroup;
	char path[64];
	ssize_t n;

	if (!targets && !cc->all) {
		if (cc->has_duration)
			return usage_error("--duration needs a target to attach to (-p, -a --binary, --cgroup)",
					   NULL);
		return 0;
	}
	if (targets > 1)
		return usage_error("attach to one kind of target: -p, -a --binary or --cgroup", NULL);
	if (cc->all && !cc->at.binary)
		return usage_error("-a needs --binary PATH (the executable whose processes to record)", NULL);
	if (cc->at.binary && !cc->all)
		return usage_error("--binary goes with -a (every process that runs it)", NULL);
	if (nr_args > 0)
		return usage_error("attaching (-p, -a, --cgroup) takes no command", NULL);
	if (cc->o.runs > 1)
		return usage_error("-r repeats a command; attaching records once", NULL);
	if (cc->at.nr_pids) {
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)cc->at.pids[0]);
		n = readlink(path, cc->exe, sizeof(cc->exe) - 1);
		if (n > 0) {
			cc->exe[n] = '\0';
			cc->at.exe = cc->exe;
		}
	} else if (cc->at.binary) {
		cc->at.exe = cc->at.binary;
	} else {
		cc->at.exe = cgroup_exe(cc);
	}
	cc->o.attach = &cc->at;
	return 0;
}

int cmd_collect(int argc, char **argv)
{
	struct collect_cmd cc = { .req = COLLECT_OFFCPU_REQUEST_INIT };
	struct collect_opts *o = &cc.o;
	char why[160];
	int offcpu = 0;
	struct collect_offcpu_stats st;
	struct collect_result r;
	int i, err;
	struct symbolize_unwind_hook *hook = NULL;
	struct collect_unwinder unwinder;

	o->callgraph = COLLECT_CALLGRAPH_AUTO;
	o->argc_self = argc;
	o->argv_self = argv;
	err = parse_args(argc, argv, &cc, &i);
	if (err || i < 0)
		return err;
	err = check_attach(&cc, argc - i);
	if (err)
		return err;
	if (i >= argc && !o->attach)
		return usage_error("no command given; put it after the options (pgo collect ./bench)", NULL);
	if (o->event && strcmp(o->event, "auto") && strcmp(o->event, "cycles") &&
	    strcmp(o->event, "task-clock") && strcmp(o->event, "cpu-clock")) {
		pgo_error("unknown event '%s' (use auto, cycles, task-clock or cpu-clock)", o->event);
		return PGO_EXIT_USAGE;
	}
	pgo_report_set_verbosity(cc.quiet ? -1 : cc.verbose);
	o->argv = o->attach ? NULL : argv + i;
	if (o->callgraph == COLLECT_CALLGRAPH_AUTO && o->attach && !cc.at.exe) {
		/* a cgroup without a process yet: DWARF is right either way */
		o->callgraph = COLLECT_CALLGRAPH_DWARF_UNWOUND;
	} else if (o->callgraph == COLLECT_CALLGRAPH_AUTO) {
		o->callgraph = symbolize_callgraph_auto(o->attach ? cc.at.exe : o->argv[0], why, sizeof(why));
		o->callgraph_why = why;
	}
	/* fp and dwarf-unwound stacks are unwound while recording (symbolize/unwindhook.h) */
	if (o->callgraph == COLLECT_CALLGRAPH_FP || o->callgraph == COLLECT_CALLGRAPH_DWARF_UNWOUND) {
		if (symbolize_unwind_hook_new(&hook, &unwinder))
			return PGO_EXIT_ERROR;
		o->unwinder = &unwinder;
	}
	err = collect_offcpu_run(o, &cc.req, &r, &st, &offcpu);
	symbolize_unwind_hook_free(hook);
	if (err)
		return PGO_EXIT_ERROR;
	report_run(o, &r);
	report_file(o, &r);
	report_callgraph(&r);
	if (r.unwound)
		report_unwind(&r);
	if (offcpu)
		report_offcpu(&st);
	return r.exit_code;
}
