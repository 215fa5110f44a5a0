/* SPDX-License-Identifier: MIT */
/*
 * The pprof writer: the stacks of a loaded profile (convert/stacks.h) as a gzipped
 * perftools.profiles.Profile (convert/pprof.proto), the format of go tool pprof, Parca,
 * Pyroscope and the OpenTelemetry profiler's pprof exports.
 *
 * What goes where:
 *  - sample types: samples/count and cpu/nanoseconds; with off-CPU data also
 *    offcpu/nanoseconds and wall/nanoseconds (on + off); the default is cpu;
 *  - period type cpu/nanoseconds, period 10^9 / rate (or the fixed period);
 *  - one mapping per DSO (the profiled binary first) with its path and build-id; the
 *    kernel is "[kernel.kallsyms]". Samples of many processes are merged by file offset,
 *    so a DSO gets an address range of its own, disjoint from the others' (DSO n of first
 *    use at n * 2^36, file offset 0): address - memory_start + file_offset is the sampled
 *    file offset for any reader. Kernel addresses are the kernel's;
 *  - one location per sampled address, its lines the inline chain, innermost first and
 *    the caller last (pprof's order);
 *  - labels: pid, tid, run, thread (the thread's name where the recording has it) and,
 *    for off-CPU samples, "thread state" (the state frame is a label, not a location).
 * The output is deterministic: the same input gives the same bytes (no timestamps; the
 * gzip header's time is 0).
 */
#ifndef PGO_CONVERT_PPROF_H
#define PGO_CONVERT_PPROF_H

#include <stddef.h>
#include <stdint.h>

struct convert_profile;

struct convert_pprof_thread {
	uint32_t pid, tid;
	const char *name;              /* borrowed */
};

struct convert_pprof_opts {
	const struct convert_pprof_thread *threads; /* thread names; may be NULL */
	size_t nr_threads;
};

struct convert_pprof_summary {
	uint64_t samples, locations, functions, mappings;
};

/*
 * Write the stacks of `p` (loaded with want_stacks = 1) to `path` (atomically; "-" is
 * stdout). Returns 0, or -1 after reporting (allocation, write failure); on failure no
 * file is left at `path`.
 */
int convert_pprof_write(struct convert_profile *p, const struct convert_pprof_opts *o,
			const char *path, struct convert_pprof_summary *sum);

#endif
