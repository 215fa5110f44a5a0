/* SPDX-License-Identifier: MIT */
/*
 * The power line of a verdict: the smallest regression the check could detect with 80%
 * probability, from the recording's sample counts and the fitted noise, and what would
 * shrink it. The model is the test's own (gate/stats.h): a function at share s of the
 * baseline's T_B samples a run has m = s T_B; under a change of D samples its runs vary
 * by s0^2 v(m0) around their mean (m0 = m + D/2, v the fitted trend phi m0 + alpha m0^2,
 * the moderated variance the test uses, at least min(m0, 1)); its estimate is
 * D + se T_df with se = sqrt(var (1/kB + 1/kH)). It fails the gate when the estimate
 * clears both the test's threshold, Benjamini-Hochberg's q/M for one change among M
 * tests (t_{1-q/M, df} se), and the floors; so the 80% point is
 * D80 = max(t_{1-q/M} se, floors) + t_{0.8} se, solved at m0 by fixed-point iteration.
 */
#ifndef PGO_GATE_POWER_H
#define PGO_GATE_POWER_H

#include <stddef.h>

#include "gate/stats.h"

struct gate_power_model {
	double total;          /* T_B: normalised samples per baseline run */
	size_t kb, kh;         /* runs per side */
	struct gate_noise noise; /* the trend of self time (the test's) */
	struct gate_prior prior;
	size_t nr_tests;       /* the BH m */
	double q, abs_floor, rel_floor;
};

struct gate_power {
	double share;          /* the function's share of the baseline total (0.05) */
	double mde;            /* 80% detectable increase, a fraction of the baseline total */
	int at_floor;          /* the floors, not the noise, set mde */
	double mde_runs2;      /* the same with twice the runs per side */
	double mde_samples4;   /* ... with four times the samples per run (rate x length) */
};

/* The 80%-power point for a function at `share` (0 < share < 1). */
void gate_power_at(const struct gate_power_model *m, double share, struct gate_power *out);

/*
 * Probability that a function at `share` that grows by `delta` (a fraction of the
 * baseline total) fails the check, under the same model.
 */
double gate_power_prob(const struct gate_power_model *m, double share, double delta);

#endif
