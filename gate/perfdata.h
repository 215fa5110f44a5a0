/* SPDX-License-Identifier: MIT */
/*
 * The gate's inputs from the collector: symbolize a perf.data file (pgo collect -r N)
 * into profile JSON text (docs/profile-json.md) through convert's API, and collect N runs
 * of a benchmark in-process. The text is what `pgo gate record` stores in a git note and
 * what gate_profile_parse() reads, so files, notes and fresh collections share one path.
 *
 * All functions return 0, or -1 after reporting; *text is new (free()).
 */
#ifndef PGO_GATE_PERFDATA_H
#define PGO_GATE_PERFDATA_H

#include "collect/offcpu.h"

/* 1 if the file starts with the perf.data magic, 0 if not (or unreadable). */
int gate_is_perf_data(const char *path);

/* Symbolize a perf.data file into profile JSON text. */
int gate_perf_to_json(const char *path, char **text);

struct gate_collect_opts {
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
 * graphs, plus the off-CPU event per opts->offcpu) and symbolize the result. A benchmark that fails (non-zero status, killed) or
 * an interrupted collection is an error: the gate never judges partial data.
 */
int gate_collect_json(const struct gate_collect_opts *opts, char **text);

#endif
