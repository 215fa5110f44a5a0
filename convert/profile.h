/* SPDX-License-Identifier: MIT */
/*
 * The loaded profile: one or more perf.data files read through collect/pdread.h,
 * every sample mapped to a DSO and a link-time address through the per-process map
 * tables (MMAP/MMAP2, FORK, COMM exec), and aggregated per address (for the compiler
 * profiles) and per call stack (for folded/json/svg, see convert/stacks.h).
 *
 * Ownership: convert_profile_load() returns a new profile, freed with
 * convert_profile_free(); every pointer it hands out is borrowed from it.
 */
#ifndef PGO_CONVERT_PROFILE_H
#define PGO_CONVERT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/unwind.h"

struct convert_profile;

struct convert_options {
	const char *const *inputs;     /* perf.data files; several are merged */
	size_t nr_inputs;
	const char *const *binaries;   /* -b: binaries to profile; none = the sampled main executable */
	size_t nr_binaries;
	int force;                     /* accept a binary whose build-id differs from the recorded one */
	int want_stacks;               /* keep per-stack aggregates (folded, json, svg); binary
					  selection is then best effort: no binary is no error */
	uint64_t inline_max_size;      /* AutoFDO: a hot direct call to a function of at most
					  this many bytes, or a hot indirect call whose dominant
					  target is one, gets an inline instance from the call
					  stacks (convert/sampleprof.h); 0: none */
};

/* Default of inline_max_size (docs/convert.md "Inline instances from call stacks"). */
#define CONVERT_INLINE_MAX_SIZE 320

/* What the summary line and the JSON writer need. */
struct convert_info {
	const char *command;           /* recorded command line of the first input, or NULL */
	const char *event;             /* name of the first on-CPU event ("task-clock", "cycles") */
	uint64_t rate_hz;              /* sample_freq when the attr used a frequency, else 0 */
	uint64_t period;               /* fixed sample period when not a frequency, else 0 */
	int period_ns;                 /* the event counts ns (task-clock, cpu-clock): a fixed
					  period is a rate of 10^9 / period Hz */
	int has_offcpu;                /* an "offcpu-time" event is present */
	int has_callchain, has_branch_stack;
	uint64_t samples;              /* all samples read (all events) */
	uint64_t samples_binary;       /* on-CPU user samples that landed in a selected binary */
	uint64_t samples_other_dso;    /* on-CPU samples in other DSOs (libc, ...) */
	uint64_t samples_kernel;       /* on-CPU samples in the kernel */
	uint64_t samples_unmapped;     /* on-CPU samples no mapping covers */
	uint64_t lost;                 /* LOST + LOST_SAMPLES */
	uint64_t unknown_records;      /* record types skipped */
	struct symbolize_unwind_stats unwind; /* dwarf-mode stacks (symbolize/unwind.h), all inputs */
};

int convert_profile_load(const struct convert_options *o, struct convert_profile **out);
void convert_profile_free(struct convert_profile *p);
const struct convert_info *convert_profile_info(const struct convert_profile *p);

/*
 * The binaries the samples are attributed to (the -b ones or the main executable),
 * with their build-id (hex, "" if the ELF has none).
 */
size_t convert_profile_nr_binaries(const struct convert_profile *p);
const char *convert_profile_binary_path(const struct convert_profile *p, size_t i);
const char *convert_profile_binary_build_id(const struct convert_profile *p, size_t i);

#endif
