/* SPDX-License-Identifier: MIT */
/*
 * pprof as input: a gzipped (or plain) perftools.profiles.Profile, from pgo itself, go
 * tool pprof -proto, Parca, Pyroscope or the OpenTelemetry profiler, turned into an
 * ordinary perf.data recording that the rest of convert replays like any other. Names
 * and lines in the profile are ignored: addresses are symbolized again against the
 * binaries, found by build-id then path, so compiler profiles come out as from a
 * perf.data of the same samples.
 *
 * The translation:
 *  - each mapping becomes an MMAP2 with its build-id (start, limit, file offset, path);
 *    the kernel ("[kernel.kallsyms]", or addresses in the kernel half) needs none;
 *  - each sample becomes one sample record whose period is its time value (cpu/nanoseconds,
 *    or count x period in the period type's unit) and whose PERF_SAMPLE_WEIGHT is the
 *    number of samples it stands for (the samples/count value; else the time value over
 *    the period), with the location addresses as the call chain (leaf first, kernel part
 *    first); convert reads that weight back as a count, for translated files only;
 *  - off-CPU time (offcpu/nanoseconds, as pgo writes it) becomes offcpu-time samples with
 *    the "thread state" label's state;
 *  - a "run" label (pgo's) makes each run a process of its own, so a pgo profile keeps
 *    its runs; other profiles are one run, and several of them merge into that one run
 *    (memory then grows with the distinct stacks, not with the number of files). "tid"
 *    labels are kept.
 * Bounds: at most 1 GiB of decompressed profile; every index is checked; a bad file is
 * reported naming it and nothing is written.
 */
#ifndef PGO_CONVERT_PPROF_READ_H
#define PGO_CONVERT_PPROF_READ_H

#include <stdint.h>

/* 1 if `path` starts like a pprof file (gzip magic, or a protobuf field 1 tag), else 0. */
int convert_pprof_is(const char *path);

struct convert_pprof_read_stats {
	uint64_t samples_in, records_out, mappings, locations;
	uint64_t no_mapping;           /* user addresses no mapping covers (kept, unmapped) */
	int has_runs;                  /* samples carry "run" labels (a pgo profile) */
};

/*
 * Translate the pprof file `in` into a perf.data file `out` (written atomically).
 * Returns 0, or -1 after reporting (naming `in`).
 */
int convert_pprof_to_perfdata(const char *in, const char *out, struct convert_pprof_read_stats *st);

#endif
