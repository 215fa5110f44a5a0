/* SPDX-License-Identifier: MIT */
/*
 * Internals of loading a profile (convert/profile.h is its contract), shared by
 *
 *   profile.c           the replay of each input: samples into per-address counts and
 *                       stacks; the load entry point and the profile's accessors
 *   profile_maps.c      processes, their runs and map tables (MMAP, FORK, COMM)
 *   profile_binaries.c  which binaries the profile is for, and their samples
 *
 * and nothing outside them. A loader lives for one input file; what it finds goes into the
 * profile, which owns it.
 */
#ifndef PGO_CONVERT_PROFILE_INTERNAL_H
#define PGO_CONVERT_PROFILE_INTERNAL_H

#include <stdint.h>

#include "collect/pdread.h"
#include "convert/internal.h"
#include "symbolize/unwind.h"
#include "lib/cow.h"

#define NO_RUN UINT32_MAX
/*
 * Mapping entries of all processes together. Forked children share their parent's until
 * they map something; then each has its own copy, so M mmaps and F children that each map
 * one more file would cost M x F. 2^20 entries (32 MiB) is far above real recordings (a
 * pre-fork server: tens of workers x hundreds of mappings).
 */
#define CONVERT_MAX_LIVE_MAPS ((size_t)1 << 20)

struct mapent {
	uint64_t start, end, pgoff;
	uint32_t dso;
};

/*
 * A process's executable mappings (struct mapent), sorted by start and disjoint, shared
 * copy-on-write by a parent and the children it forks (a copy per fork let a 1 MB file with
 * 2000 mmaps and 10000 forks ask for 600 MB).
 */
struct maptab {
	struct pgo_cow *b;             /* NULL: no mappings */
	struct mapent hit[2];          /* copies of the entries the last IPs looked up fell in,
					  the latest first (end 0: none): samples and their call
					  chains mostly land in one or two binaries (the program,
					  libc), and a check of them skips the binary search.
					  Reset whenever b changes. */
};

struct proc {
	uint32_t pid;
	uint32_t run;
	int collector;                 /* pgo itself: its forks start runs, it has none */
	struct maptab maps;
};

/* Per-input state. */
struct loader {
	struct convert_profile *p;
	struct collect_pdread *r;
	struct proc *procs;
	size_t nr_procs, alloc_procs;
	struct pgo_u64map pid2proc;    /* pid -> index + 1 */
	uint32_t last_pid;             /* the pid proc_find found last (a pid's index never */
	size_t last_proc;              /* changes), index + 1; 0: none */
	const struct collect_pd_attr *view_attr; /* the attr of the last sample, and its view */
	uint32_t view;
	int per_process_runs;          /* a pgo collect file: every process tree is a run */
	int first_run;                 /* runs of this file start here (-1: none yet) */
	const struct collect_pd_attr *sel; /* the on-CPU event aggregated per address */
	uint64_t *frame_buf;
	size_t frame_alloc;
	struct symbolize_unwind *uw;     /* files with user regs + stack copies (dwarf mode) */
	int chains_unwound;            /* pgo collect unwound the user chains (dwarf-unwound) */
	struct pgo_cow_budget maps_budget; /* mapping entries of all processes */
	struct symbolize_unwind_frame uw_frames[SYMBOLIZE_UNWIND_MAX_FRAMES];
};

static inline uint32_t convert_intern(struct convert_profile *p, const char *s)
{
	long id = pgo_strtab_intern(&p->strs, s ? s : "");

	return id < 0 ? 0 : (uint32_t)id;
}

/* profile_maps.c */
int convert_is_special_path(const char *path);
int convert_is_shared_object(const char *path);
struct proc *convert_proc_find(struct loader *L, uint32_t pid);
struct proc *convert_proc_get(struct loader *L, uint32_t pid);
/* The collector's run is made on demand (only if it has samples of its own). */
int convert_proc_run(struct loader *L, struct proc *pr);
void convert_maptab_release(struct maptab *t);
int convert_on_mmap(struct loader *L, const struct collect_pd_event *ev);
int convert_on_fork(struct loader *L, const struct collect_pd_event *ev);
int convert_on_comm(struct loader *L, const struct collect_pd_event *ev);

/* profile_binaries.c */
int convert_select_binaries(struct convert_profile *p, const struct convert_options *o);
int convert_attribute_samples(struct convert_profile *p);

#endif
