/* SPDX-License-Identifier: MIT */
/*
 * Compare a baseline and a head profile (gate-statistics.md): per-function one-sided
 * tests of self and inclusive time under TMM size factors and a moderated NB model,
 * Benjamini-Hochberg over all tests, practical floors, the code-motion filter, the
 * root-cause list and the program-level check. The result is a verdict that the
 * reporters (gate/report.h) print; nothing here does I/O besides diagnostics.
 */
#ifndef PGO_GATE_COMPARE_H
#define PGO_GATE_COMPARE_H

#include <stddef.h>

#include "gate/power.h"
#include "gate/profile.h"
#include "gate/stats.h"

/*
 * How the two sides were recorded, for the reports and the drift policy: "files" (pgo
 * gate compare: unknown), "notes" (a baseline note recorded earlier, maybe elsewhere),
 * "interleaved" (base and head run alternately in one job, so machine drift cancels).
 */
enum gate_mode {
	GATE_MODE_FILES,
	GATE_MODE_NOTES,
	GATE_MODE_INTERLEAVED,
};

/* "files", "notes", "interleaved" */
const char *gate_mode_name(enum gate_mode m);
/* Returns the mode for a name, or -1. */
int gate_mode_parse(const char *name);

struct gate_opts {
	double q;              /* BH level: bounds the per-PR false-failure rate under A/A (0.01) */
	double abs_floor;      /* flag only if delta >= this fraction of baseline total (0.005) */
	double rel_floor;      /* ... and >= this fraction of the function's own time (0.05) */
	double program_floor;  /* program-level check: relative CPU-time increase (0.02) */
	int program_fail;      /* 1: a program-level regression fails the gate; 0: it warns */
	enum gate_view_kind view;
	int allow_other_binary;/* compare profiles of different binaries (basename) */
	double min_m0;         /* functions with pooled mean >= this fit the noise model (10) */
	double ci_level;       /* confidence level of the reported intervals (0.95) */
	struct gate_tmm_opts tmm;
	/*
	 * Not failing on environment drift: in every mode but interleaved, a flag whose
	 * increase is only in kernel or library frames below an own function (its own code's
	 * time did not change) is drift, a warning. Interleaved runs cancel drift, so there
	 * the own function that calls them is the root cause.
	 */
	enum gate_mode mode;
	/*
	 * Own code (-b): DSO basenames matching one of these fnmatch(3) globs are the
	 * benchmark's own; none: the profile's "dsos" own flags (the profiled binaries).
	 * Kernel, library and thread-state frames are folded into the own function that
	 * called them before testing, in every view; only own functions are root causes.
	 */
	const char *const *own_globs;
	size_t nr_own_globs;
};
#define GATE_OPTS_INIT { 0.01, 0.005, 0.05, 0.02, 0, GATE_VIEW_CPU, 0, 10.0, 0.95, GATE_TMM_INIT, \
			 GATE_MODE_FILES, NULL, 0 }

enum gate_kind { GATE_SELF, GATE_INCL };

/* What a row means in the reports. */
enum gate_role {
	GATE_ROLE_NONE,
	GATE_ROLE_ROOT,      /* a root cause */
	GATE_ROLE_ROOT_INCL, /* the inclusive time of a function whose self time is a root cause */
	GATE_ROLE_VIA,       /* a flagged caller of a root cause */
	GATE_ROLE_MOVED,     /* flagged, but code motion: a warning */
	GATE_ROLE_IMPROVED,  /* a significant decrease beyond the floors */
	GATE_ROLE_OUTSIDE,   /* flagged, but not the benchmark's own code (a stack the unwinder
				left without any own frame): a warning */
	GATE_ROLE_DRIFT,     /* flagged, but only kernel or library frames below this own
				function grew (environment drift): a warning */
};

/*
 * "root cause", "root cause (inclusive)", "via", "moved", "improved", "not own code",
 * "drift" or ""
 */
const char *gate_role_name(enum gate_role r);

/* One hypothesis: a function's self or inclusive time. */
struct gate_result {
	char *name;            /* folded function name (new, owned by the verdict) */
	enum gate_kind kind;
	int tested;            /* passed the independent filter (pooled mean >= abs_floor/2 of T_B) */
	struct gate_ftest t;   /* means in normalised samples per run, variances, t, p */
	double base_pct, head_pct; /* mean / side total, in % */
	double delta;          /* (mean_h - mean_b) / T_B: change in units of baseline total */
	double rel;            /* (mean_h - mean_b) / mean_b; INFINITY for a new function */
	double ci_lo, ci_hi;   /* ci_level interval of delta (FCR-adjusted when flagged) */
	int ci_fcr;            /* the interval is a false-coverage-rate interval of the flagged set */
	double q, q_down;      /* BH q-values for an increase / a decrease (NAN if not tested) */
	int flagged;           /* regression: q <= Q and both floors cleared */
	int improved;          /* the same rule for a decrease (reported, never fails) */
	int moved;             /* flagged, but the code-motion filter says time moved: warn */
	int outside;           /* flagged, but not own code: warn */
	int drift;             /* flagged, but its own code's part is not: warn */
	double own_delta;      /* the change of the samples whose leaf is own code, in units
				  of T_B (the part of delta not in kernel or library frames) */
	int root_cause;        /* flagged, not moved, and no flagged descendant (or self time) */
	enum gate_role role;
	char *via;             /* for root causes: flagged ancestors "main;process" (new) or NULL */
};

struct gate_verdict {
	int regression;        /* the gate fails: a root cause exists (or program_fail and flagged) */
	struct gate_opts opts;
	char *base_label, *head_label;
	size_t kb, kh;         /* runs per side */
	double *sf;            /* size factors, kb baseline runs then kh head runs */
	double total_b, total_h; /* mean normalised samples per run (T_B, T_H) */
	struct gate_noise noise_self, noise_incl; /* the trends of self and inclusive time */
	struct gate_prior prior_self, prior_incl;
	size_t nr_funcs;       /* functions seen on either side */
	size_t nr_tests;       /* hypotheses tested (self + inclusive), the BH m */
	size_t nr_flagged, nr_root, nr_moved, nr_improved;
	struct gate_result *results; /* sorted: root causes, other flags, moved, not own code,
					drift, improved, rest by |delta| */
	size_t nr_results;
	size_t nr_drift;       /* rows with role drift */
	/*
	 * Kernel and library functions whose own (leaf) time grew beyond noise and floors,
	 * tested like the rest on the unfolded stacks, largest first: where drift (or a
	 * change that faults more) shows. Never root causes.
	 */
	struct gate_drift_frame {
		char *name;
		double delta, base_pct, head_pct, q;
	} *drift_frames;
	size_t nr_drift_frames;
	/*
	 * The power line (gate/power.h): the 80%-detectable regression of a function at 5%
	 * of the time, and of the hottest own function (power_top, its share), from the
	 * self-time noise fitted here.
	 */
	struct gate_power_model power_model;
	struct gate_power power[2];
	size_t nr_power;
	char *power_top;       /* new, or NULL */
	enum gate_mode mode;   /* = opts.mode */
	/* Program-level check: Welch t on ln(time per run) of the view (cpu_ns for cpu). */
	int program_valid;
	struct gate_welch program;
	double program_rel;    /* exp(diff) - 1 */
	int program_flag;
};

/*
 * Compare base and head (same name table). Errors (reported, -1): fewer than 2 runs on a
 * side, the view missing on a side, profiles of different binaries or events (unless
 * allowed). *out is new: gate_verdict_free().
 */
int gate_compare(const struct gate_profile *base, const struct gate_profile *head,
		 const struct gate_opts *o, struct gate_verdict **out);
void gate_verdict_free(struct gate_verdict *v);

#endif
