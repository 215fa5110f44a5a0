/* SPDX-License-Identifier: MIT */
/*
 * Per-thread time accounting of a recording, the sanity check of the wall-clock view: a
 * thread's on-CPU time (sampled, from a ns clock event) plus its off-CPU time (offcpu-time
 * event) should add up to its lifetime (FORK, or exec if it exec'd, -> EXIT). A shortfall means lost samples, a
 * too-high --off-cpu-min, switch-out sampling, or time the off-CPU recorder could not see.
 *
 * Ownership: convert_thread_times() returns a new array (free() it).
 */
#ifndef PGO_CONVERT_THREADS_H
#define PGO_CONVERT_THREADS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct convert_thread_time {
	uint32_t pid, tid;
	char comm[16];                 /* last COMM seen, "" if none */
	uint64_t start_ns, end_ns;     /* FORK (or exec, if later) and EXIT times; else first / last
					  record seen */
	unsigned has_fork : 1, has_exit : 1;
	uint64_t cpu_ns, offcpu_ns;    /* summed periods */
	uint64_t cpu_samples, offcpu_samples;
};

struct convert_thread_summary {
	int has_offcpu;                /* an offcpu-time event is in the file */
	int cpu_is_ns;                 /* the on-CPU event is task-clock or cpu-clock */
	size_t threads;                /* threads with both FORK and EXIT (the ones checked) */
	uint64_t lifetime_ns, cpu_ns, offcpu_ns; /* sums over those */
	double worst;                  /* lowest (on + off) / lifetime among them; 1 if none */
	uint32_t worst_tid;
};

/*
 * Read `path` (perf.data) and account every thread. Threads are in order of first
 * appearance; a tid reused after its EXIT starts a new entry. Returns 0 with *out (new)
 * and *nr set, or -1 after reporting.
 */
int convert_thread_times(const char *path, struct convert_thread_time **out, size_t *nr,
			 struct convert_thread_summary *sum);

/*
 * Print the per-thread table and a verdict line to fp; returns 0, or -1 after reporting
 * (unreadable file). Threads whose on + off covers less than `min_coverage` of their
 * lifetime are flagged "SHORT".
 */
int convert_threads_report(const char *path, double min_coverage, FILE *fp);

#endif
