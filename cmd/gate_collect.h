/* SPDX-License-Identifier: MIT */
/*
 * pgo gate's own collections: run the benchmark N times under the collector and hand the
 * gate the symbolized profile. The command orchestrates; gate/ only judges profiles.
 * Returns 0, or -1 after reporting.
 */
#ifndef PGO_CMD_GATE_COLLECT_H
#define PGO_CMD_GATE_COLLECT_H

#include "collect/offcpu.h"
#include "convert/stackset.h"

struct cmd_gate_collect_opts {
	char *const *argv;      /* the benchmark, NULL-terminated */
	unsigned int runs;      /* >= 2 */
	unsigned int freq;      /* Hz; 0: the collector's default (999) */
	int argc_self;          /* pgo's command line, recorded in the perf.data */
	char *const *argv_self;
	struct collect_offcpu_request offcpu; /* off-CPU time and its options, as pgo collect
						 takes them (collect_offcpu_option()) */
};

/*
 * Run the benchmark opts->runs times under the collector (on-CPU, frame-pointer call
 * graphs, plus the off-CPU event per opts->offcpu) and symbolize the result into set
 * (CONVERT_STACKSET_INIT on entry, empty again on error). A benchmark that fails
 * (non-zero status, killed) or an interrupted collection is an error: the gate never
 * judges partial data.
 */
int cmd_gate_collect(const struct cmd_gate_collect_opts *opts, struct convert_stackset *set);

#endif
