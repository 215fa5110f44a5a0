/* SPDX-License-Identifier: MIT */
/*
 * Symbolized call stacks of a loaded profile (convert/profile.h), for the writers of
 * folded stacks, the profile JSON and flamegraphs. Load the profile with
 * want_stacks = 1, then walk its runs and stacks.
 *
 * Runs: a file from `pgo collect -r N` holds N process trees, each rooted at a
 * direct child of pgo; each tree is a run (in order of appearance). Any other file
 * (perf record) is one run. Several input files append their runs in order.
 *
 * Stacks are aggregated per (run, pid, tid, view, frames); frames run root -> leaf,
 * inline frames expanded (an inlined callee is its own frame after its caller).
 * Names follow docs/profile-json.md: function name with clone suffixes kept
 * ("foo.constprop.0"), "[dso]" (basename) or "[unknown]" when unresolved, kernel
 * frames end in "_[k]". All pointers are borrowed from the profile.
 */
#ifndef PGO_CONVERT_STACKS_H
#define PGO_CONVERT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "convert/profile.h"

enum convert_stack_view {
	CONVERT_STACK_CPU = 0,          /* on-CPU samples */
	CONVERT_STACK_OFFCPU = 1,       /* the "offcpu-time" event: period = blocked ns */
};

struct convert_frame {
	const char *name;
	const char *dso;               /* basename of the DSO, NULL if unknown */
	const char *file;              /* source file of this frame's line, NULL if unknown */
	unsigned line;                 /* 0 if unknown */
	unsigned inlined : 1;          /* inlined into the next frame towards the root */
	unsigned kernel : 1;
	unsigned own : 1;              /* in a profiled binary (-b, or the main executable): the
					  benchmark's own code, not a library or the kernel */
	unsigned ret : 1;              /* addr is a return address (a caller's frame) */
	uint32_t dso_index;            /* convert_profile_dso()'s index, or CONVERT_DSO_KERNEL,
					  CONVERT_DSO_UNKNOWN, CONVERT_DSO_STATE (a thread state) */
	uint64_t addr;                 /* the sampled address: a file offset in the DSO, a
					  kernel address, or the thread state's number */
};
/*
 * The frames of one sampled address are consecutive: the outermost function first
 * (inlined == 0), then the functions inlined into it (inlined == 1), innermost last.
 */
#define CONVERT_DSO_KERNEL 0xfffffffeU
#define CONVERT_DSO_UNKNOWN 0xffffffffU
#define CONVERT_DSO_STATE 0xfffffffdU

/*
 * The DSO of index `dso` (< convert_profile_nr_dsos()): its path (borrowed) and its
 * build-id as lower-case hex ("" if none) in build_id_hex. Returns 0, or -1 if no such DSO.
 */
size_t convert_profile_nr_dsos(const struct convert_profile *p);
int convert_profile_dso(const struct convert_profile *p, uint32_t dso, const char **path,
			char build_id_hex[41]);

struct convert_stack {
	unsigned run;                  /* index into the runs */
	uint32_t pid, tid;
	enum convert_stack_view view;
	const char *event;             /* event name of the samples */
	uint64_t weight_ns;            /* summed period (ns for task-clock/cpu-clock/offcpu-time) */
	uint64_t samples;
	size_t nr_frames;
	const struct convert_frame *frames; /* root -> leaf; valid during the callback only */
};

struct convert_run_info {
	unsigned index;
	uint32_t pid;                  /* root process of the run */
	const char *comm;              /* its command name, or "" */
	uint64_t start_ns, end_ns;     /* first and last timestamp seen in the run (perf clock) */
	uint64_t samples;              /* on-CPU samples */
	uint64_t cpu_ns, offcpu_ns;    /* summed weights per view */
	uint64_t lost;                 /* lost samples that could be attributed to the run's file */
};

size_t convert_profile_nr_runs(const struct convert_profile *p);
const struct convert_run_info *convert_profile_run_info(const struct convert_profile *p, size_t i);

/*
 * Call fn for every aggregated stack, runs in order. fn returns 0 to continue, < 0 to
 * stop (that value is returned). Symbolization happens here, cached per address.
 * Returns 0, the callback's negative value, or -1 after reporting an error.
 */
typedef int (*convert_stack_fn)(const struct convert_stack *st, void *data);
int convert_stacks_foreach(struct convert_profile *p, convert_stack_fn fn, void *data);

#endif
