/* SPDX-License-Identifier: MIT */
/*
 * The symbolized profile model: per run and per view (on-CPU, off-CPU), a set of folded
 * stacks (frames root -> leaf joined by ';') with their weight in ns, plus the metadata
 * of docs/profile-json.md. Every output writer (folded, flamegraph SVG, profile JSON)
 * reads this model, and the profile JSON reader fills it, so the gate and convert share
 * one representation.
 *
 * Stacks are interned once per set: a stack id is the same in every run and view.
 * Frame names must not contain ';' (convert_stackset_add() turns it into ':', as
 * stackcollapse-perf.pl does); empty frames become "[unknown]".
 *
 * Ownership: the set owns everything in it. String fields are new (malloc'd) or NULL and
 * are freed by convert_stackset_release(); assign them with pgo_strdup().
 */
#ifndef PGO_CONVERT_STACKSET_H
#define PGO_CONVERT_STACKSET_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hashmap.h"

enum convert_view {
	CONVERT_VIEW_CPU = 0,    /* on-CPU time, "cpu" in the profile JSON */
	CONVERT_VIEW_OFFCPU = 1, /* blocked time, "offcpu" */
};
#define CONVERT_VIEW_NR 2

/* "cpu" / "offcpu"; borrowed static string. */
const char *convert_view_name(enum convert_view v);
/* Parse a view name; returns 0, or -1 (without reporting) if unknown. */
int convert_view_parse(const char *s, enum convert_view *v);

struct convert_run {
	uint64_t run;         /* run number within the collection (0, 1, ...) */
	int64_t pid;          /* root process of the run, -1 if unknown */
	uint64_t duration_ns; /* wall time of the run, 0 if unknown */
	uint64_t cpu_ns, offcpu_ns; /* as recorded; 0 means "sum of the stacks" */
	uint64_t samples, lost;
	struct pgo_u64map weights[CONVERT_VIEW_NR]; /* stack id -> ns */
};

struct convert_stackset {
	char *tool, *command, *binary_path, *build_id, *event; /* new, or NULL */
	uint64_t rate_hz;
	unsigned views;            /* bit (1 << view) for each view that was recorded */
	struct pgo_strtab stacks;  /* stack id -> folded string */
	struct convert_run *runs;
	size_t nr_runs, alloc_runs;
	/*
	 * Where frames come from ("dsos" in docs/profile-json.md), so the gate can tell the
	 * benchmark's own code from libraries and the kernel: DSO basenames, whether each is
	 * a profiled binary, and the (DSO, frame name) pairs seen. A name may be in several
	 * DSOs. Empty when unknown (older profile files). Fill it with
	 * convert_stackset_add_frame_dso().
	 */
	struct pgo_strtab dsos;        /* dso id -> basename */
	unsigned char *dso_own;        /* dso id -> 1 if a profiled binary */
	size_t dso_own_alloc;
	struct pgo_strtab frame_names; /* frame id -> frame name, sanitized as in stacks */
	struct pgo_u64map frame_dsos;  /* key dso id << 32 | frame id, value 1 */
};
#define CONVERT_STACKSET_INIT { NULL, NULL, NULL, NULL, NULL, 0, 1u << CONVERT_VIEW_CPU, \
				PGO_STRTAB_INIT, NULL, 0, 0, PGO_STRTAB_INIT, NULL, 0, \
				PGO_STRTAB_INIT, PGO_U64MAP_INIT }

void convert_stackset_init(struct convert_stackset *set);
/* Free everything; the set is back to CONVERT_STACKSET_INIT. */
void convert_stackset_release(struct convert_stackset *set);

/*
 * Append a run; returns its index (>= 0) or -1 on allocation failure. Other fields of
 * the run start at 0 and may be set through set->runs[index].
 */
long convert_stackset_add_run(struct convert_stackset *set, uint64_t run, int64_t pid);

/*
 * Add `weight` ns to the stack frames[0..nr) (root first) in run `run_index`, view
 * `view`. Names are sanitized (';' -> ':', "" -> "[unknown]", invalid UTF-8 bytes
 * -> '?'). nr == 0 is an error.
 * Returns 0, or -1 after reporting (allocation failure, weight overflow).
 */
int convert_stackset_add(struct convert_stackset *set, size_t run_index, enum convert_view view,
			 const char *const *frames, size_t nr, uint64_t weight);
/*
 * Same with an already folded stack ("main;work;leaf"). The string is checked: it must
 * be non-empty and have no empty frame ("a;;b", "a;"); a bad one is reported (naming
 * the stack) and -1 returned.
 */
int convert_stackset_add_folded(struct convert_stackset *set, size_t run_index,
				enum convert_view view, const char *stack, uint64_t weight);

/*
 * Note that frame `name` (sanitized as convert_stackset_add() does) lives in DSO `dso`
 * (a basename: "libc.so.6", "[kernel.kallsyms]"); own: the DSO is one of the profiled
 * binaries. A DSO once marked own stays own. Returns 0, or -1 on allocation failure.
 */
int convert_stackset_add_frame_dso(struct convert_stackset *set, const char *name,
				   const char *dso, int own);

/* Folded string of a stack id (< set->stacks.nr); borrowed. */
const char *convert_stackset_stack(const struct convert_stackset *set, size_t id);

/* Sum of the weights of one run and view; saturates at UINT64_MAX. */
uint64_t convert_run_total(const struct convert_run *run, enum convert_view view);

struct convert_stack_weight {
	uint32_t stack;  /* stack id */
	uint64_t weight; /* ns */
};
/*
 * The stacks of `view` summed over one run (run_index >= 0) or all runs (-1), zero
 * weights left out, sorted by folded string (byte order) so output is deterministic.
 * *out is new (free() it), NULL when *nr == 0. Returns 0 or -1 after reporting
 * (allocation failure, a sum above UINT64_MAX).
 */
int convert_stackset_collect(const struct convert_stackset *set, enum convert_view view,
			     long run_index, struct convert_stack_weight **out, size_t *nr);

/*
 * Append the runs of src (weights, run metadata) to dst, for merging several inputs;
 * they are renumbered after dst's (run numbers stay unique, as the profile JSON needs).
 * dst keeps its own metadata, taking src's only where dst has none. Returns 0 or -1.
 */
int convert_stackset_append(struct convert_stackset *dst, const struct convert_stackset *src);

struct convert_profile;
/*
 * Fill an empty set from a perf.data profile loaded with want_stacks = 1: metadata,
 * one run per run of the profile (same order, so run indexes agree), its stacks per
 * view. Per-thread detail is summed away (the process is not a frame). Returns 0, or
 * -1 after reporting, with the set empty again.
 */
int convert_stackset_from_profile(struct convert_profile *p, struct convert_stackset *set);

#endif
