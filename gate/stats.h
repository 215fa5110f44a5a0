/* SPDX-License-Identifier: MIT */
/*
 * The gate's statistics (shared/design/gate-statistics.md §3-§6), as pure functions on
 * arrays: no I/O, no allocation visible to the caller beyond what it passes in. Special
 * functions and distributions come from GSL.
 *
 * Count matrices are row-major, one row per function, one column per run:
 * c[f * nr + r]. side[r] is 0 for a baseline run and 1 for a head run; both sides need
 * at least 2 runs (the caller checks and reports that).
 *
 * Functions returning int return 0, or -1 after reporting through lib/report.h (only on
 * allocation failure or invalid arguments).
 */
#ifndef PGO_GATE_STATS_H
#define PGO_GATE_STATS_H

#include <stddef.h>

/* TMM settings (§3); GATE_TMM_INIT gives the method's defaults. */
struct gate_tmm_opts {
	double min_mean;     /* functions in K have mean count >= this (5) */
	double trim;         /* fraction trimmed at each end of M_fr within a run (0.25) */
	double max_abs_lfc;  /* second pass drops |ln((yH+1/2)/(yB+1/2))| > this (0.15) */
};
#define GATE_TMM_INIT { 5.0, 0.25, 0.15 }

/*
 * Robust size factors s_r (TMM-style trimmed, weighted mean of log-ratios, two passes).
 * Writes nr factors to sf. With no function in K the factors are all 1.
 */
int gate_size_factors(const double *c, size_t nf, size_t nr, const int *side,
		      const struct gate_tmm_opts *o, double *sf);

/*
 * Common NB dispersion alpha by the Pearson moment equation (§4.1), solved by bisection.
 * y is the normalised matrix. Functions with m0_f >= min_m0 (10) enter. Returns alpha
 * >= 0 (0 when the data are not over-dispersed or no function qualifies); *nused gets
 * |E| if not NULL.
 */
double gate_nb_dispersion(const double *y, size_t nf, size_t nr, const int *side,
			  double min_m0, size_t *nused);

/*
 * The mean-variance trend of the runs: Var[y_fr] = phi m + alpha m^2 at mean m per run.
 * phi m is sampling (1 for Poisson; below 1 where periodic sampling of steady code is
 * steadier than Poisson, above where a function is entered in bursts); alpha m^2 is a
 * run-to-run factor with CV sqrt(alpha) that dominates the well-sampled functions.
 */
struct gate_noise {
	double phi;
	double alpha;
};

/* v(m) = phi m + alpha m^2. */
double gate_noise_var(const struct gate_noise *n, double m);

/* Functions in E needed to fit phi; with fewer, phi = 1 and alpha is the common one. */
#define GATE_TREND_MIN_FUNCS 8

/*
 * The trend (phi, alpha) fitted to the functions with m0_f >= min_m0 (E): each pooled
 * within-side variance s_f^2 (d = nr - 2 degrees of freedom, E[s_f^2] = v(m0_f),
 * Var[s_f^2] = 2 v^2 / d) is regressed on (m0_f, m0_f^2) by iteratively reweighted least
 * squares with weights 1 / v(m0_f)^2 (the gamma-family fit DESeq2 uses for its
 * dispersion trend), both coefficients kept >= 0. Functions whose ratio s_f^2 / v is above
 * 15 or below 1e-4 (DESeq2's bounds) are left out of the next pass: a few wildly volatile
 * functions must not set the noise of every other (the moderation step below keeps them
 * noisier than the trend). With fewer
 * than GATE_TREND_MIN_FUNCS functions in E: phi = 1, alpha = gate_nb_dispersion.
 * *nused (may be NULL) gets |E|. Returns 0, or -1 on allocation failure.
 */
int gate_noise_trend(const double *y, size_t nf, size_t nr, const int *side, double min_m0,
		     struct gate_noise *out, size_t *nused);

/* Inverse of the trigamma function psi'(x) for y > 0, by Newton iteration. */
double gate_trigamma_inverse(double y);

/*
 * Empirical-Bayes prior for the variance ratios x_f = s_f^2 / v0_f with d degrees of
 * freedom each (Smyth 2004, limma's fitFDist): d0 (may be INFINITY) and s0^2. Zero
 * ratios are raised to 1e-5 times the median, as limma does, so ln stays finite.
 * With fewer than 3 ratios the prior is d0 = INFINITY, s0^2 = 1 (trust the NB model).
 */
struct gate_prior {
	double d0;
	double s02;
};
int gate_fit_prior(const double *x, size_t n, double d, struct gate_prior *out);

/* Moderated variance (d0 s0^2 v0 + d s^2) / (d0 + d); d0 = INFINITY gives s0^2 v0. */
double gate_moderated_var(const struct gate_prior *p, double v0, double s2, double d);

/* One-sided upper-tail p of a t statistic with df degrees of freedom (INFINITY: normal). */
double gate_t_upper_p(double t, double df);
/* Two-sided quantile: the value q with P(|T| <= q) = level, e.g. 1.959964 for 0.95, df = INFINITY. */
double gate_t_quantile(double level, double df);

/*
 * Benjamini-Hochberg adjusted p-values (q-values), monotone, capped at 1. p and q may
 * alias. NaN p-values are left out (their q is NaN) and do not count towards m.
 */
int gate_bh_adjust(const double *p, size_t n, double *q);

/* Two-sample Welch t test, one-sided for mean(b) > mean(a). */
struct gate_welch {
	double diff;  /* mean(b) - mean(a) */
	double se;
	double t;
	double df;
	double p;     /* upper-tail p */
};
int gate_welch(const double *a, size_t na, const double *b, size_t nb, struct gate_welch *out);

/* Everything the per-function test produces for one row (one function, self or inclusive). */
struct gate_ftest {
	double mean_b, mean_h; /* normalised means per side */
	double m0;             /* (mean_b + mean_h) / 2 */
	double v0;             /* null variance per run on the trend: phi m0 + alpha m0^2 */
	double s2;             /* pooled within-side sample variance, d = kB + kH - 2 df */
	double vmod;           /* moderated variance, at least min(m0, 1) */
	double se;             /* standard error of mean_h - mean_b */
	double t;
	double df;             /* d0 + d */
	double p_up, p_down;   /* one-sided p for an increase / a decrease */
};

/*
 * Per-function moderated tests on a normalised matrix y (§4): fits the noise
 * (gate_noise_trend; with trend = 0, phi = 1 and the common alpha), pools s_f^2, fits
 * the prior of s_f^2 / v0_f on the rows where alpha m0^2 >= phi m0 / 4 (if at least
 * GATE_TREND_MIN_FUNCS), else on the rows with m0 >= min_m0 (else on all rows with
 * counts), and fills res[nf].
 * A row's moderated variance is never below min(m0, 1): Poisson for a row sampled less
 * than once a run, one sample^2 above (the resolution of sampling).
 * *noise_out and *prior_out (may be NULL) get the estimates.
 */
int gate_moderated_tests(const double *y, size_t nf, size_t nr, const int *side, double min_m0,
			 int trend, struct gate_ftest *res, struct gate_noise *noise_out,
			 struct gate_prior *prior_out);

#endif
