/* SPDX-License-Identifier: MIT */
/*
 * pgo gate's own collections: run the benchmark N times under the collector and hand the
 * gate the symbolized profile. The command orchestrates; gate/ only judges profiles.
 * Returns 0, or -1 after reporting.
 */
#ifndef PGO_CMD_GATE_COLLECT_H
#define PGO_CMD_GATE_COLLECT_H

#include <stdint.h>

#include "collect/offcpu.h"
#include "convert/stackset.h"

struct cmd_gate_collect_opts {
	char *const *argv;      /* the benchmark, NULL-terminated */
	const char *file;       /* NULL, or the program run with argv (collect_opts.file) */
	unsigned int runs;      /* >= 2 (>= 1 for cmd_gate_collect_data()) */
	unsigned int freq;      /* Hz; 0: the collector's default (999) */
	int argc_self;          /* pgo's command line, recorded in the perf.data */
	char *const *argv_self;
	struct collect_offcpu_request offcpu; /* off-CPU time and its options, as pgo collect
						 takes them (collect_offcpu_option()) */
	int quiet;              /* no "collected N runs" line (the caller summarises) */
};

/* What one collection recorded. */
struct cmd_gate_collect_stats {
	unsigned int runs;
	uint64_t samples, cpu_ns, duration_ns;
};

/*
 * Run the benchmark opts->runs times under the collector (on-CPU, with the call stacks
 * pgo collect records by default: repaired fp or dwarf-unwound; plus the off-CPU event
 * per opts->offcpu) and symbolize the result into set (CONVERT_STACKSET_INIT on entry,
 * empty again on error). A benchmark that fails (non-zero status, killed) or an
 * interrupted collection is an error: the gate never judges partial data.
 */
int cmd_gate_collect(const struct cmd_gate_collect_opts *opts, struct convert_stackset *set);

/*
 * The same collection (opts->runs >= 1), written to the perf.data file `path`, not
 * symbolized: several files are symbolized together (gate_input_from_perfs()). st may be
 * NULL. On error no file is left at path.
 */
int cmd_gate_collect_data(const struct cmd_gate_collect_opts *opts, const char *path,
			  struct cmd_gate_collect_stats *st);

#endif
