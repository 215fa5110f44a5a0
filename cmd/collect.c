// SPDX-License-Identifier: MIT
/* pgo collect: options -> collect_run() -> the benchmark's exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/builtin.h"
#include "collect/callgraph.h"
#include "collect/collect.h"
#include "collect/offcpu.h"
#include "lib/parse.h"
#include "lib/report.h"
#include "symbolize/fpcensus.h"

static const char usage_line[] =
	"usage: pgo collect [-F HZ] [-e EVENT] [-g | --call-graph auto|fp|dwarf[,SIZE]|none] [-r N] [-o FILE]\n"
	"                   [-z | --compression-level N]\n"
	"                   [--[no-]off-cpu] [--off-cpu-stacks all|user|kernel|none] [--off-cpu-unwind dwarf|fp] [--no-off-cpu-callers]\n"
	"                   [--off-cpu-min TIME] [--off-cpu-sample N] [-q] [-v] [--] CMD [ARGS]";

static void help(void)
{
	printf("%s\n\n"
	       "Run CMD under a sampling profiler and write a perf.data file that perf report,\n"
	       "perf script and pgo convert read. Every thread and child process of CMD is\n"
	       "followed. pgo collect exits with CMD's own status (128+N if killed by signal N).\n\n"
	       "options:\n"
	       "  -F, --freq HZ          samples per second of CPU time (default 999)\n"
	       "  -e, --event EVENT      auto (default: cycles if the CPU has a PMU, else task-clock),\n"
	       "                         cycles, task-clock or cpu-clock\n"
	       "  -g                     record frame-pointer call stacks (--call-graph fp)\n"
	       "      --call-graph MODE  auto (default): fp if CMD's binary keeps frame pointers,\n"
	       "                         else dwarf; fp: the kernel walks frame pointers (cheap,\n"
	       "                         breaks in code built without them, Debian's libc included);\n"
	       "                         dwarf[,SIZE]: copy SIZE bytes of user stack (default %u)\n"
	       "                         and the registers per sample, unwound by pgo convert with\n"
	       "                         the binaries' CFI; none: IPs only\n"
	       "  -r, --repeat N         run CMD N times into one file (default 1); each run is its own\n"
	       "                         process tree and stays separable; stops at the first failing run\n"
	       "  -o, --output FILE      output file (default pgo.data); written whole or not at all\n"
	       "  -z                     compress the records with zstd, as perf record -z does\n"
	       "                         (perf report and pgo convert read it); dwarf stacks\n"
	       "                         shrink about 15x\n"
	       "      --compression-level N  the same at zstd level N (1 = -z, fastest .. 22)\n"
	       COLLECT_OFFCPU_OPTIONS_HELP
	       "  -q, --quiet            no summary line\n"
	       "  -v, --verbose          more diagnostics\n"
	       "  -h, --help             this text\n\n"
	       "SIGINT and SIGTERM are passed on to CMD; what was recorded is still written.\n"
	       "Exit codes: CMD's status; 2 on errors (command not found, perf_event_open refused,\n"
	       "output not writable, bad option values) with no output file; 64 on usage errors.\n\n"
	       "EXAMPLES\n"
	       "  pgo collect ./bench                    record ./bench into pgo.data (999 Hz, call stacks)\n"
	       "  pgo collect -r 5 -o base.data ./bench  five runs in one file, for pgo gate\n"
	       "  pgo collect -F 4999 --call-graph none -- ./bench --size 10\n"
	       "  pgo collect --call-graph dwarf,16384 ./bench   deep stacks in a -O2 build\n"
	       "  pgo-collect ./bench && perf report -i pgo.data\n"
	       "  pgo collect --off-cpu --off-cpu-stacks user ./server-bench   CPU and waiting time\n",
	       usage_line, COLLECT_DWARF_STACK_DEFAULT);
}

static int usage_error(const char *what, const char *arg)
{
	pgo_error("%s%s%s%s", what, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	fprintf(stderr, "%s\n", usage_line);
	return PGO_EXIT_USAGE;
}

/*
 * Match a long option "--name" or "--name=value", or a short "-c" / "-cVALUE".
 * Returns 1 on a match; *val is the attached value or NULL.
 */
static int match(const char *arg, const char *shrt, const char *lng, const char **val)
{
	size_t n;

	*val = NULL;
	if (lng && !strncmp(arg, "--", 2)) {
		n = strlen(lng);
		if (!strncmp(arg + 2, lng, n) && (arg[2 + n] == '\0' || arg[2 + n] == '=')) {
			*val = arg[2 + n] == '=' ? arg + 3 + n : NULL;
			return 1;
		}
		return 0;
	}
	if (shrt && arg[0] == '-' && arg[1] == shrt[0] && arg[1] != '-') {
		*val = arg[2] ? arg + 2 : NULL;
		return 1;
	}
	return 0;
}

int cmd_collect(int argc, char **argv)
{
	struct collect_opts o = { 0 };
	char why[160];
	struct collect_offcpu_request req = COLLECT_OFFCPU_REQUEST_INIT;
	const struct collect_offcpu_optname *on;
	int offcpu = 0;
	struct collect_offcpu_stats st;
	struct collect_result r;
	const char *val, *arg;
	uint64_t v;
	int i, verbose = 0, quiet = 0;

	o.callgraph = COLLECT_CALLGRAPH_AUTO;
	o.argc_self = argc;
	o.argv_self = argv;
	for (i = 1; i < argc; i++) {
		arg = argv[i];
		if (!strcmp(arg, "--")) {
			i++;
			break;
		}
		if (arg[0] != '-' || !arg[1])
			break;
#define NEED_VALUE()                                                                  \
	do {                                                                          \
		if (!val) {                                                           \
			if (i + 1 >= argc)                                            \
				return usage_error("missing value for option", arg); \
			val = argv[++i];                                              \
		}                                                                     \
	} while (0)
		if (match(arg, "h", "help", &val)) {
			help();
			return PGO_EXIT_OK;
		} else if (match(arg, "F", "freq", &val)) {
			NEED_VALUE();
			if (pgo_parse_u64_range(val, 1, 100000, &v)) {
				pgo_error("invalid sampling rate '%s' for -F (a whole number of Hz, 1..100000)", val);
				return PGO_EXIT_USAGE;
			}
			o.freq = (unsigned int)v;
		} else if (match(arg, "e", "event", &val)) {
			NEED_VALUE();
			o.event = val;
		} else if (!strcmp(arg, "-g")) {
			o.callgraph = COLLECT_CALLGRAPH_FP;
		} else if (match(arg, NULL, "call-graph", &val)) {
			NEED_VALUE();
			if (collect_callgraph_parse(val, &o.callgraph, &o.stack_size))
				return PGO_EXIT_USAGE;
		} else if (match(arg, "r", "repeat", &val)) {
			NEED_VALUE();
			if (pgo_parse_u64_range(val, 1, 100000, &v)) {
				pgo_error("invalid run count '%s' for -r (a whole number, 1..100000)", val);
				return PGO_EXIT_USAGE;
			}
			o.runs = (unsigned int)v;
		} else if (match(arg, "o", "output", &val)) {
			NEED_VALUE();
			if (!*val) {
				pgo_error("empty output file name");
				return PGO_EXIT_USAGE;
			}
			o.output = val;
		} else if (!strcmp(arg, "-z")) {
			o.compress_level = 1;
		} else if (match(arg, NULL, "compression-level", &val)) {
			NEED_VALUE();
			if (pgo_parse_u64_range(val, 1, 22, &v)) {
				pgo_error("invalid zstd level '%s' for --compression-level (1..22)", val);
				return PGO_EXIT_USAGE;
			}
			o.compress_level = (int)v;
		} else if (match(arg, "q", "quiet", &val) && !val) {
			quiet = 1;
		} else if (match(arg, "v", "verbose", &val) && !val) {
			verbose++;
		} else {
			for (on = collect_offcpu_optnames; on->name; on++)
				if (match(arg, NULL, on->name, &val) && (on->has_value || !val))
					break;
			if (!on->name)
				return usage_error("unknown option", arg);
			if (on->has_value)
				NEED_VALUE();
			if (collect_offcpu_option(&req, on->name, val) < 0)
				return PGO_EXIT_USAGE;
		}
#undef NEED_VALUE
	}
	if (i >= argc)
		return usage_error("no command given; put it after the options (pgo collect ./bench)", NULL);
	if (o.event && strcmp(o.event, "auto") && strcmp(o.event, "cycles") &&
	    strcmp(o.event, "task-clock") && strcmp(o.event, "cpu-clock")) {
		pgo_error("unknown event '%s' (use auto, cycles, task-clock or cpu-clock)", o.event);
		return PGO_EXIT_USAGE;
	}
	pgo_report_set_verbosity(quiet ? -1 : verbose);
	o.argv = argv + i;
	if (o.callgraph == COLLECT_CALLGRAPH_AUTO) {
		o.callgraph = symbolize_callgraph_auto(o.argv[0], why, sizeof(why));
		o.callgraph_why = why;
	}
	if (collect_offcpu_run(&o, &req, &r, &st, &offcpu))
		return PGO_EXIT_ERROR;
	if (r.lost || r.lost_samples)
		pgo_warn("lost %llu records and %llu samples (the profile under-counts; try a lower -F)",
			 (unsigned long long)r.lost, (unsigned long long)r.lost_samples);
	if (r.throttled)
		pgo_warn("the kernel throttled sampling %llu times (see kernel.perf_cpu_time_max_percent)",
			 (unsigned long long)r.throttled);
	if (r.interrupted)
		pgo_info("interrupted; kept what was recorded");
	pgo_info("%u run%s, %llu samples, %llu lost, %s @ %u Hz, %.2f s, %.2f s CPU -> %s", r.runs,
		 r.runs == 1 ? "" : "s", (unsigned long long)r.samples,
		 (unsigned long long)(r.lost + r.lost_samples), r.event, r.freq, r.duration_ns / 1e9,
		 r.cpu_ns / 1e9, o.output ? o.output : "pgo.data");
	if (!o.compress_level) {
		struct stat sb;

		/* DWARF stack copies make big files; perf record -z's format shrinks them ~45x */
		if (!stat(o.output ? o.output : "pgo.data", &sb) && sb.st_size >= (256 << 20))
			pgo_info("%s is %.0f MB: -z would compress it (about 45x for DWARF stacks)",
				 o.output ? o.output : "pgo.data", sb.st_size / 1048576.0);
	} else {
		struct stat sb;

		if (!stat(o.output ? o.output : "pgo.data", &sb))
			pgo_info("zstd level %d: %.1f MB of records in a %.1f %s file (%.1fx)",
				 o.compress_level, r.raw_bytes / 1048576.0,
				 sb.st_size < 1048576 ? sb.st_size / 1024.0 : sb.st_size / 1048576.0,
				 sb.st_size < 1048576 ? "KB" : "MB",
				 sb.st_size ? (double)r.raw_bytes / (double)sb.st_size : 0.0);
	}
	if (r.callgraph == COLLECT_CALLGRAPH_DWARF)
		pgo_info("call stacks: dwarf, %u bytes of user stack per sample%s%s%s", r.stack_size,
			 r.callgraph_why[0] ? " (auto: " : "", r.callgraph_why, r.callgraph_why[0] ? ")" : "");
	else
		pgo_info("call stacks: %s%s%s%s", collect_callgraph_name(r.callgraph),
			 r.callgraph_why[0] ? " (auto: " : "", r.callgraph_why, r.callgraph_why[0] ? ")" : "");
	if (offcpu) {
		pgo_info("off-CPU: %.2f s in %llu samples; %llu switches followed (%llu sampled out), %llu intervals, "
			 "%llu under --off-cpu-min, libc callers recovered %llu, %llu closed without a switch-in; "
			 "lost: %llu user stacks, "
			 "%llu kernel stacks, %llu map-full, %llu no storage, %llu unfollowed forks%s",
			 st.total_ns / 1e9, (unsigned long long)st.samples, (unsigned long long)st.k.switches,
			 (unsigned long long)st.k.sampled_out, (unsigned long long)st.k.recorded,
			 (unsigned long long)st.k.short_blocks, (unsigned long long)st.k.callers_found,
			 (unsigned long long)st.k.switchins_unseen,
			 (unsigned long long)st.k.ustack_dropped, (unsigned long long)st.k.kstack_dropped,
			 (unsigned long long)st.k.map_full, (unsigned long long)st.k.storage_failed,
			 (unsigned long long)st.k.tgid_full, st.raw_tp ? " (raw_tp fallback)" : "");
		if (st.dwarf) {
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
				all += st.k.unwind_end[k];
			for (k = 1; k < OFFCPU_UNW_NR && w < sizeof(ends); k++)
				if (st.k.unwind_end[k])
					w += (size_t)snprintf(ends + w, sizeof(ends) - w, ", %llu %s",
							      (unsigned long long)st.k.unwind_end[k], end_why[k]);
			pgo_info("off-CPU user stacks: dwarf, %llu of %llu complete; truncated: %llu%s%s; "
				 "%llu unwind tables (%llu rows), %llu files without one, %llu that did not fit; "
				 "%llu stacks lost to a full map",
				 (unsigned long long)st.k.unwind_end[0], (unsigned long long)all,
				 (unsigned long long)(all - st.k.unwind_end[0]), w ? "" : " ", ends,
				 (unsigned long long)st.tables, (unsigned long long)st.table_rows,
				 (unsigned long long)st.tables_failed, (unsigned long long)st.tables_full,
				 (unsigned long long)st.k.ustacks_full);
		}
		/* the program runs on every switch of the machine; followed ones cost the most */
		if (st.prog_run_cnt)
			pgo_info("off-CPU cost: %.1f ms of CPU in the BPF program, %llu context switches "
				 "machine-wide at %.0f ns each, %llu of them followed",
				 st.prog_run_ns / 1e6, (unsigned long long)st.prog_run_cnt,
				 (double)st.prog_run_ns / (double)st.prog_run_cnt,
				 (unsigned long long)st.k.switches);
		if (st.k.map_full || st.k.storage_failed || st.k.tgid_full)
			pgo_warn("off-CPU time was lost (%llu intervals): the profile under-counts waiting",
				 (unsigned long long)(st.k.map_full + st.k.storage_failed));
	}
	return r.exit_code;
}
