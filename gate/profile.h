/* SPDX-License-Identifier: MIT */
/*
 * Read a profile JSON ("pgo-profile" v1, docs/profile-json.md) into per-run counts of
 * folded stacks, strictly: the file may come from a PR author, so every type, version
 * and range is checked by convert's reader (convert/profile_json.h) and a bad file is
 * reported naming the file and the field ("invalid profile 'FILE': runs[0].cpu: ..."),
 * one error, return -1, never a crash.
 *
 * Function identity: compiler clone suffixes (.isra.N, .constprop.N, .part.N, .cold,
 * .cold.N, .llvm.N, .lto_priv.N, in any combination) are folded into the base name, and
 * stacks that become identical are merged.
 *
 * Weights: the JSON holds nanoseconds; the gate models sample counts (Poisson within a
 * run), so weights are turned into sample equivalents: on-CPU ns × samples / Σ on-CPU ns
 * of the run (ns × rate_hz / 1e9 when the run has no sample count); off-CPU ns ×
 * rate_hz / 1e9 (pseudo-samples at the sampling rate). The wall view is on-CPU plus
 * off-CPU.
 */
#ifndef PGO_GATE_PROFILE_H
#define PGO_GATE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "convert/stackset.h"
#include "lib/hashmap.h"

enum gate_view_kind {
	GATE_VIEW_CPU,
	GATE_VIEW_OFFCPU,
	GATE_VIEW_WALL,
	GATE_VIEW_NR,
};

/* "cpu", "offcpu", "wall" */
const char *gate_view_name(enum gate_view_kind v);
/* Returns the view for a name, or -1. */
int gate_view_parse(const char *name);

/*
 * What a function is, from the profile's "dsos" (docs/profile-json.md) and, for names
 * that say it themselves, from the name: the offcpu and wall views look for root causes
 * in the benchmark's own code only.
 */
enum gate_frame_kind {
	GATE_FRAME_UNKNOWN = 0, /* no DSO recorded (older profiles): taken as own code */
	GATE_FRAME_OWN,         /* in a profiled binary (in any, if the name is in several DSOs) */
	GATE_FRAME_LIB,         /* only in other DSOs, or unresolved there ("[libc.so.6]", "[unknown]") */
	GATE_FRAME_KERNEL,      /* "name_[k]" */
	GATE_FRAME_STATE,       /* a thread state: "[running]", "[runnable]", "[sleep]", "[io]" */
};

struct gate_stack {
	uint32_t *frames;  /* function ids in the shared name table, root -> leaf */
	size_t depth;
};

struct gate_view {
	int present;
	size_t nr_stacks;
	struct gate_stack *stacks;
	double *counts;    /* nr_stacks x nr_runs, row-major: counts[s * nr_runs + r] */
	size_t stacks_alloc, counts_alloc;
	struct pgo_strtab index; /* folded stack string -> stack id */
};

/*
 * The gate keeps dense count matrices: stacks x runs per view (struct gate_view) and five
 * of functions x runs in gate_compare() (own code self and inclusive, the same of own-leaf
 * samples, unfolded self). Inputs beyond GATE_MAX_CELLS cells per view (2^25: 256 MiB of
 * counts) or GATE_MAX_CMP_CELLS per comparison matrix (2^23: 320 MiB for the five) are
 * refused before anything that size is allocated: a sparse file of a few hundred KiB
 * (many runs, many stacks each in one run) would otherwise ask for gigabytes. Real
 * profiles are far below (20 runs x 100,000 stacks is 2M cells).
 */
#define GATE_MAX_CELLS ((size_t)1 << 25)
#define GATE_MAX_CMP_CELLS ((size_t)1 << 23)

/*
 * 0 if rows x cols <= max, else -1 after reporting "WHAT is too large for the gate: ROWS
 * ROWS_NAME x COLS runs ..." (what: the input, quoted by the caller).
 */
int gate_check_cells(size_t rows, size_t cols, size_t max, const char *rows_name,
		     const char *what);

struct gate_run {
	int64_t run;
	int64_t pid;
	uint64_t duration_ns, cpu_ns, offcpu_ns;
	uint64_t samples, lost;
};

struct gate_profile {
	char *label;            /* file name or "note on COMMIT", used in messages */
	char *tool, *command, *binary_path, *build_id, *event;
	double rate_hz;
	size_t nr_runs;
	struct gate_run *runs;
	struct gate_view views[GATE_VIEW_NR];
	struct pgo_strtab *names; /* borrowed: function names shared with the other side */
	unsigned char *kinds;     /* name id -> enum gate_frame_kind; ids >= nr_kinds: unknown */
	size_t nr_kinds, kinds_alloc;
	/*
	 * The stack set it was built from (ns, clone names as recorded, the DSOs of
	 * frames), for the differential flamegraph and -b; a merged profile has both.
	 */
	struct convert_stackset set;
};

/* The function id of a frame name as recorded (clone suffixes folded), or -1. */
long gate_profile_find_function(const struct gate_profile *p, const char *frame);

/* The kind of function id f in profile p (GATE_FRAME_UNKNOWN if p does not know). */
enum gate_frame_kind gate_profile_frame_kind(const struct gate_profile *p, uint32_t f);

/*
 * Build the gate's model of a stack set (gate/input.h reads files, perf.data and
 * collections into one), taking the set: *set is empty afterwards, also on error. label
 * names the input in error messages. names is the caller's table, shared by the
 * profiles that will be compared so function ids agree; it must outlive the profile.
 * *out is new: free it with gate_profile_free(). Returns 0 or -1 (reported).
 */
int gate_profile_take(struct convert_stackset *set, const char *label,
		      struct pgo_strtab *names, struct gate_profile **out);
/* Same from profile JSON text in memory (a git note; need not be NUL-terminated). */
int gate_profile_parse(const char *data, size_t len, const char *label,
		       struct pgo_strtab *names, struct gate_profile **out);
void gate_profile_free(struct gate_profile *p);

/*
 * A profile with the runs of a followed by the runs of b (same name table), e.g. the
 * head runs of a first stage and of the confirmation stage. Metadata comes from a.
 * *out is new. Returns 0 or -1.
 */
int gate_profile_merge(const struct gate_profile *a, const struct gate_profile *b,
		       struct gate_profile **out);

/*
 * Length of name once clone suffixes are folded ("foo.isra.0.cold" -> 3). A "_[k]"
 * kernel marker is not part of the suffix search; callers keep it (see profile.c).
 */
size_t gate_fold_clone_len(const char *name, size_t len);

#endif
