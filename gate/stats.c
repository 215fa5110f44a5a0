// SPDX-License-Identifier: MIT
/* The gate's statistics: size factors, NB dispersion, moderated t, BH, Welch (pure math). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_psi.h>

#include "gate/stats.h"
#include "lib/alloc.h"
#include "lib/report.h"

/*
 * GSL's default error handler aborts. Every call here is inside its domain by
 * construction, but the gate reads files a PR author controls, so never let a stray
 * NaN turn into an abort.
 */
static void stats_gsl_quiet(void)
{
	static int done;

	if (!done) {
		gsl_set_error_handler_off();
		done = 1;
	}
}

struct mw {
	double m;
	double w;
};

static int mw_cmp(const void *a, const void *b)
{
	double x = ((const struct mw *)a)->m, y = ((const struct mw *)b)->m;

	return (x > y) - (x < y);
}

static void side_means(const double *row, size_t nr, const int *side, const double *sf,
		       double *mb, double *mh)
{
	double sb = 0, sh = 0;
	size_t r, kb = 0, kh = 0;

	for (r = 0; r < nr; r++) {
		double v = sf ? row[r] / sf[r] : row[r];

		if (side[r]) {
			sh += v;
			kh++;
		} else {
			sb += v;
			kb++;
		}
	}
	*mb = kb ? sb / kb : 0;
	*mh = kh ? sh / kh : 0;
}

/* A row's side means and pooled within-side variance, sum of squares / (nr - 2). */
static double row_moments(const double *row, size_t nr, const int *side, double *mb, double *mh)
{
	double ss = 0;
	size_t r;

	side_means(row, nr, side, NULL, mb, mh);
	for (r = 0; r < nr; r++) {
		double dv = row[r] - (side[r] ? *mh : *mb);

		ss += dv * dv;
	}
	return ss / (double)(nr - 2);
}

/* One TMM pass over the functions with keep[f] set; writes sf[nr]. */
static int tmm_pass(const double *c, size_t nf, size_t nr, const unsigned char *keep,
		    const double *cbar, double trim, double *sf)
{
	struct mw *v;
	double *lmean;
	size_t f, r, n = 0;

	for (f = 0; f < nf; f++)
		n += keep[f] != 0;
	if (!n) {
		for (r = 0; r < nr; r++)
			sf[r] = 1;
		return 0;
	}
	v = pgo_calloc(n, sizeof(*v));
	lmean = pgo_calloc(nf, sizeof(*lmean));
	if (!v || !lmean) {
		free(v);
		free(lmean);
		return -1;
	}
	for (f = 0; f < nf; f++) {
		double s = 0;

		if (!keep[f])
			continue;
		for (r = 0; r < nr; r++)
			s += log(c[f * nr + r] + 0.5);
		lmean[f] = s / nr;
	}
	for (r = 0; r < nr; r++) {
		size_t i = 0, lo, hi;
		double sw = 0, swm = 0;

		for (f = 0; f < nf; f++) {
			if (!keep[f])
				continue;
			v[i].m = log(c[f * nr + r] + 0.5) - lmean[f];
			v[i].w = cbar[f];
			i++;
		}
		qsort(v, n, sizeof(*v), mw_cmp);
		/* Trim floor(trim * n) values at each end; never everything. */
		lo = (size_t)floor(trim * (double)n);
		hi = n - lo;
		if (lo >= hi) {
			lo = 0;
			hi = n;
		}
		for (i = lo; i < hi; i++) {
			sw += v[i].w;
			swm += v[i].w * v[i].m;
		}
		sf[r] = sw > 0 ? exp(swm / sw) : 1;
	}
	free(v);
	free(lmean);
	return 0;
}

int gate_size_factors(const double *c, size_t nf, size_t nr, const int *side,
		      const struct gate_tmm_opts *o, double *sf)
{
	unsigned char *keep;
	double *cbar;
	size_t f, r;
	int err = -1;

	if (!nr)
		return 0;
	keep = pgo_calloc(nf ? nf : 1, 1);
	cbar = pgo_calloc(nf ? nf : 1, sizeof(*cbar));
	if (!keep || !cbar)
		goto out;
	for (f = 0; f < nf; f++) {
		double s = 0;

		for (r = 0; r < nr; r++)
			s += c[f * nr + r];
		cbar[f] = s / nr;
		keep[f] = cbar[f] >= o->min_mean;
	}
	if (tmm_pass(c, nf, nr, keep, cbar, o->trim, sf))
		goto out;
	/*
	 * Second pass: a function that really changed would pull the scale towards itself,
	 * hiding part of its own change and shifting every other function the other way.
	 */
	for (f = 0; f < nf; f++) {
		double mb, mh;

		if (!keep[f])
			continue;
		side_means(c + f * nr, nr, side, sf, &mb, &mh);
		if (fabs(log((mh + 0.5) / (mb + 0.5))) > o->max_abs_lfc)
			keep[f] = 0;
	}
	err = tmm_pass(c, nf, nr, keep, cbar, o->trim, sf);
out:
	free(keep);
	free(cbar);
	return err;
}

/* Sum over E of the Pearson statistic at dispersion a. */
static double pearson_sum(const double *y, size_t nf, size_t nr, const int *side,
			  const double *m0, const double *mb, const double *mh, double a)
{
	double s = 0;
	size_t f, r;

	for (f = 0; f < nf; f++) {
		double v0, ss = 0;

		if (m0[f] < 0)
			continue;
		v0 = m0[f] + a * m0[f] * m0[f];
		for (r = 0; r < nr; r++) {
			double d = y[f * nr + r] - (side[r] ? mh[f] : mb[f]);

			ss += d * d;
		}
		s += ss / v0;
	}
	return s;
}

double gate_nb_dispersion(const double *y, size_t nf, size_t nr, const int *side,
			  double min_m0, size_t *nused)
{
	double *m0 = NULL, *mb = NULL, *mh = NULL, lo = 0, hi = 1, target, alpha = 0;
	size_t f, r, ne = 0, kb = 0;
	int i;

	if (nused)
		*nused = 0;
	for (r = 0; r < nr; r++)
		kb += !side[r];
	if (kb < 2 || nr - kb < 2 || !nf)
		return 0;
	m0 = pgo_calloc(nf, sizeof(*m0));
	mb = pgo_calloc(nf, sizeof(*mb));
	mh = pgo_calloc(nf, sizeof(*mh));
	if (!m0 || !mb || !mh)
		goto out;
	for (f = 0; f < nf; f++) {
		side_means(y + f * nr, nr, side, NULL, &mb[f], &mh[f]);
		m0[f] = (mb[f] + mh[f]) / 2;
		if (m0[f] >= min_m0 && m0[f] > 0)
			ne++;
		else
			m0[f] = -1; /* not in E */
	}
	if (nused)
		*nused = ne;
	if (!ne)
		goto out;
	target = (double)ne * (double)(nr - 2);
	/* The sum falls monotonically in alpha; alpha = 0 when even Poisson over-explains. */
	if (pearson_sum(y, nf, nr, side, m0, mb, mh, 0) <= target)
		goto out;
	for (i = 0; i < 200 && pearson_sum(y, nf, nr, side, m0, mb, mh, hi) > target; i++)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (pearson_sum(y, nf, nr, side, m0, mb, mh, mid) > target)
			lo = mid;
		else
			hi = mid;
	}
	alpha = (lo + hi) / 2;
out:
	free(m0);
	free(mb);
	free(mh);
	return alpha;
}

double gate_noise_var(const struct gate_noise *n, double m)
{
	return n->phi * m + n->alpha * m * m;
}

/* Sum of w (s2 - phi m - alpha m^2)^2 over the rows in the fit. */
static double trend_rss(const double *m, const double *s2, const double *w,
			const unsigned char *in, size_t n, const struct gate_noise *t)
{
	double rss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (in[i]) {
			double r = s2[i] - gate_noise_var(t, m[i]);

			rss += w[i] * r * r;
		}
	return rss;
}

/*
 * Weighted least squares of s2 on (m, m^2) with both coefficients >= 0: the free
 * solution if it is feasible, else the better of the two one-coefficient fits. The
 * columns are scaled by the largest m so the normal equations stay well conditioned.
 */
static void trend_wls(const double *m, const double *s2, const double *w,
		      const unsigned char *in, size_t n, struct gate_noise *out)
{
	double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0, mx = 0, det;
	struct gate_noise p1, p2;
	size_t i;

	for (i = 0; i < n; i++)
		if (in[i] && m[i] > mx)
			mx = m[i];
	for (i = 0; i < n && mx > 0; i++) {
		double x1 = m[i] / mx, x2 = x1 * x1;

		if (!in[i])
			continue;
		a11 += w[i] * x1 * x1;
		a12 += w[i] * x1 * x2;
		a22 += w[i] * x2 * x2;
		b1 += w[i] * x1 * s2[i];
		b2 += w[i] * x2 * s2[i];
	}
	det = a11 * a22 - a12 * a12;
	if (det > 1e-12 * a11 * a22) {
		out->phi = (b1 * a22 - b2 * a12) / det / mx;
		out->alpha = (a11 * b2 - a12 * b1) / det / (mx * mx);
		if (out->phi >= 0 && out->alpha >= 0)
			return;
	}
	p1.phi = a11 > 0 && b1 > 0 ? b1 / a11 / mx : 0;
	p1.alpha = 0;
	p2.phi = 0;
	p2.alpha = a22 > 0 && b2 > 0 ? b2 / a22 / (mx * mx) : 0;
	*out = trend_rss(m, s2, w, in, n, &p1) <= trend_rss(m, s2, w, in, n, &p2) ? p1 : p2;
}

/*
 * DESeq2's bound on a row's ratio to the trend in its fit. A tighter upper bound (the
 * 99.9% point of chi^2_d / d) cuts the upper tail of functions that are merely noisier
 * than most, biases alpha low, and doubled the simulated A/A false failures.
 */
#define TREND_MAX_RATIO 15.0

/*
 * One reweighting pass: weights 1 / v^2 at the current trend; rows whose ratio s2 / v
 * is above TREND_MAX_RATIO or below 1e-4 (constant rows) are left out.
 */
static size_t trend_weights(const double *m, const double *s2, size_t n,
			    const struct gate_noise *t, double *w, unsigned char *in)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		double v = gate_noise_var(t, m[i]);

		if (!(v > 1e-12 * m[i]))
			v = 1e-12 * m[i];
		w[i] = 1 / (v * v);
		in[i] = s2[i] / v >= 1e-4 && s2[i] / v <= TREND_MAX_RATIO;
		k += in[i];
	}
	return k;
}

/* Mean and pooled within-side variance (d = nr - 2) of every row with m0 >= min_m0. */
static size_t trend_rows(const double *y, size_t nf, size_t nr, const int *side,
			 double min_m0, double *m, double *s2)
{
	size_t f, n = 0;

	for (f = 0; f < nf; f++) {
		double mb, mh, v = row_moments(y + f * nr, nr, side, &mb, &mh);

		if (!((mb + mh) / 2 >= min_m0) || !((mb + mh) / 2 > 0))
			continue;
		m[n] = (mb + mh) / 2;
		s2[n++] = v;
	}
	return n;
}

int gate_noise_trend(const double *y, size_t nf, size_t nr, const int *side, double min_m0,
		     struct gate_noise *out, size_t *nused)
{
	double *m, *s2, *w;
	unsigned char *in;
	size_t n;
	int it, err = -1;

	out->phi = 1;
	out->alpha = gate_nb_dispersion(y, nf, nr, side, min_m0, nused);
	if (nr < 4)
		return 0;
	m = pgo_calloc(nf ? nf : 1, sizeof(*m));
	s2 = pgo_calloc(nf ? nf : 1, sizeof(*s2));
	w = pgo_calloc(nf ? nf : 1, sizeof(*w));
	in = pgo_calloc(nf ? nf : 1, 1);
	if (!m || !s2 || !w || !in)
		goto out;
	err = 0;
	n = trend_rows(y, nf, nr, side, min_m0, m, s2);
	if (n < GATE_TREND_MIN_FUNCS)
		goto out;
	for (it = 0; it < 100; it++) {
		struct gate_noise t = *out;
		int converged;

		if (trend_weights(m, s2, n, &t, w, in) < GATE_TREND_MIN_FUNCS)
			break;
		trend_wls(m, s2, w, in, n, &t);
		converged = fabs(t.phi - out->phi) <= 1e-9 * (out->phi + 1e-12) &&
			    fabs(t.alpha - out->alpha) <= 1e-9 * (out->alpha + 1e-12);
		*out = t;
		if (converged)
			break;
	}
out:
	free(m);
	free(s2);
	free(w);
	free(in);
	return err;
}

double gate_trigamma_inverse(double y)
{
	double x;
	int i;

	stats_gsl_quiet();
	if (!(y > 0))
		return NAN;
	/* psi'(x) ~ 1/x + 1/(2x^2) for large x and ~ 1/x^2 for small x. */
	if (y > 1e7)
		return 1 / sqrt(y);
	if (y < 1e-6)
		return 1 / y;
	/*
	 * Newton on 1/psi'(x) - 1/y, which is nearly linear in x (Smyth's choice): from
	 * x = 1/2 + 1/y (above the root) the iteration decreases monotonically to it.
	 */
	x = 0.5 + 1 / y;
	for (i = 0; i < 100; i++) {
		double tri = gsl_sf_psi_1(x);
		double step = tri * (1 - tri / y) / gsl_sf_psi_n(2, x);

		x += step;
		if (-step / x < 1e-10)
			break;
	}
	return x;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int gate_fit_prior(const double *x, size_t n, double d, struct gate_prior *out)
{
	double *z, med, emean = 0, evar = 0, arg;
	size_t i;

	stats_gsl_quiet();
	out->d0 = INFINITY;
	out->s02 = 1;
	if (n < 3)
		return 0;
	z = pgo_calloc(n, sizeof(*z));
	if (!z)
		return -1;
	for (i = 0; i < n; i++)
		z[i] = x[i] > 0 ? x[i] : 0;
	qsort(z, n, sizeof(*z), dbl_cmp);
	med = n % 2 ? z[n / 2] : (z[n / 2 - 1] + z[n / 2]) / 2;
	if (med <= 0)
		med = 1;
	for (i = 0; i < n; i++) {
		double v = x[i] > 1e-5 * med ? x[i] : 1e-5 * med;

		z[i] = log(v) - gsl_sf_psi(d / 2) + log(d / 2);
		emean += z[i];
	}
	emean /= n;
	for (i = 0; i < n; i++)
		evar += (z[i] - emean) * (z[i] - emean);
	evar /= n - 1;
	free(z);
	arg = evar - gsl_sf_psi_1(d / 2);
	if (arg > 0) {
		out->d0 = 2 * gate_trigamma_inverse(arg);
		out->s02 = exp(emean + gsl_sf_psi(out->d0 / 2) - log(out->d0 / 2));
	} else {
		/* psi(x) - ln(x) -> 0 as x -> infinity */
		out->s02 = exp(emean);
	}
	return 0;
}

double gate_moderated_var(const struct gate_prior *p, double v0, double s2, double d)
{
	if (isinf(p->d0))
		return p->s02 * v0;
	return (p->d0 * p->s02 * v0 + d * s2) / (p->d0 + d);
}

double gate_t_upper_p(double t, double df)
{
	stats_gsl_quiet();
	if (isnan(t))
		return NAN;
	if (isinf(df) || df > 1e7)
		return gsl_cdf_ugaussian_Q(t);
	return gsl_cdf_tdist_Q(t, df);
}

double gate_t_quantile(double level, double df)
{
	double p = 1 - (1 - level) / 2;

	stats_gsl_quiet();
	if (isinf(df) || df > 1e7)
		return gsl_cdf_ugaussian_Pinv(p);
	return gsl_cdf_tdist_Pinv(p, df);
}

struct pidx {
	double p;
	size_t i;
};

static int pidx_cmp(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

int gate_bh_adjust(const double *p, size_t n, double *q)
{
	struct pidx *v;
	size_t i, m = 0;
	double run = 1;

	v = pgo_calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		v[m].p = p[i];
		v[m].i = i;
		m++;
	}
	for (i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	qsort(v, m, sizeof(*v), pidx_cmp);
	/* q_(i) = min over j >= i of p_(j) m / j: walk down from the largest p. */
	for (i = m; i-- > 0;) {
		double a = v[i].p * (double)m / (double)(i + 1);

		if (a < run)
			run = a;
		q[v[i].i] = run;
	}
	free(v);
	return 0;
}

static void mean_var(const double *a, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += a[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		ss += (a[i] - *mean) * (a[i] - *mean);
	*var = n > 1 ? ss / (n - 1) : 0;
}

int gate_welch(const double *a, size_t na, const double *b, size_t nb, struct gate_welch *out)
{
	double ma, va, mb, vb, ea, eb;

	if (na < 2 || nb < 2)
		return pgo_error("a Welch test needs at least 2 values per side (got %zu and %zu)",
				 na, nb);
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	ea = va / na;
	eb = vb / nb;
	out->diff = mb - ma;
	out->se = sqrt(ea + eb);
	if (out->se > 0) {
		out->t = out->diff / out->se;
		out->df = (ea + eb) * (ea + eb) / (ea * ea / (na - 1) + eb * eb / (nb - 1));
		out->p = gate_t_upper_p(out->t, out->df);
	} else {
		out->t = out->diff > 0 ? INFINITY : out->diff < 0 ? -INFINITY : 0;
		out->df = (double)(na + nb - 2);
		out->p = out->diff > 0 ? 0 : 1;
	}
	return 0;
}

int gate_moderated_tests(const double *y, size_t nf, size_t nr, const int *side, double min_m0,
			 int trend, struct gate_ftest *res, struct gate_noise *noise_out,
			 struct gate_prior *prior_out)
{
	struct gate_prior prior = { INFINITY, 1 };
	struct gate_noise noise;
	double d, *x = NULL;
	size_t f, r, kb = 0, kh, nx = 0, ne = 0, nh = 0;

	for (r = 0; r < nr; r++)
		kb += !side[r];
	kh = nr - kb;
	if (kb < 2 || kh < 2)
		return pgo_error("the gate needs at least 2 runs per side (got %zu and %zu)", kb, kh);
	d = (double)(nr - 2);
	if (trend) {
		if (gate_noise_trend(y, nf, nr, side, min_m0, &noise, NULL))
			return -1;
	} else {
		noise.phi = 1;
		noise.alpha = gate_nb_dispersion(y, nf, nr, side, min_m0, NULL);
	}
	for (f = 0; f < nf; f++) {
		struct gate_ftest *t = &res[f];

		t->s2 = row_moments(y + f * nr, nr, side, &t->mean_b, &t->mean_h);
		t->m0 = (t->mean_b + t->mean_h) / 2;
		t->v0 = gate_noise_var(&noise, t->m0);
		if (t->m0 >= min_m0 && t->m0 > 0)
			ne++;
	}
	x = pgo_calloc(nf ? nf : 1, sizeof(*x));
	if (!x)
		return -1;
	/*
	 * The prior is fitted on the rows whose run-to-run term is at least a quarter of
	 * the sampling term: there functions differ in how steady they are, where sampling
	 * noise, alike for all, would make the prior look certain (a large d0) and shrink a
	 * volatile hot function onto the trend. Fewer such rows: every well-sampled row;
	 * fewer of those: every row with counts.
	 */
	for (f = 0; f < nf; f++)
		if (res[f].m0 >= min_m0 && res[f].m0 > 0 &&
		    noise.alpha * res[f].m0 >= 0.25 * noise.phi)
			nh++;
	for (f = 0; f < nf; f++)
		if (res[f].m0 > 0 && res[f].v0 > 0 && (ne < 3 || res[f].m0 >= min_m0) &&
		    (nh < GATE_TREND_MIN_FUNCS || noise.alpha * res[f].m0 >= 0.25 * noise.phi))
			x[nx++] = res[f].s2 / res[f].v0;
	if (gate_fit_prior(x, nx, d, &prior)) {
		free(x);
		return -1;
	}
	free(x);
	for (f = 0; f < nf; f++) {
		struct gate_ftest *t = &res[f];
		double diff = t->mean_h - t->mean_b;

		t->df = prior.d0 + d;
		t->vmod = t->m0 > 0 ? gate_moderated_var(&prior, t->v0, t->s2, d) : 0;
		/*
		 * A floor of min(m0, 1) sample^2 per run. The prior is fitted on well-sampled
		 * rows, and periodic sampling of steady loops makes those far steadier than
		 * Poisson (s0^2 ~ 0.02 on tests/helpers/gate-work), so it would give a row seen
		 * once a run a variance of ~0.02: 0,0,0,0,0 against 1,1,1,1,1 then tests as a
		 * certain regression (p ~ 1e-13). Sampling cannot resolve a row finer than that:
		 * below one sample a run its count is Poisson (Bernoulli), and above it the
		 * period's phase alone moves each run's count by up to a sample.
		 */
		if (t->vmod < fmin(t->m0, 1.0))
			t->vmod = fmin(t->m0, 1.0);
		t->se = sqrt(t->vmod * (1.0 / kb + 1.0 / kh));
		if (t->se > 0) {
			t->t = diff / t->se;
			t->p_up = gate_t_upper_p(t->t, t->df);
			t->p_down = gate_t_upper_p(-t->t, t->df);
		} else {
			t->t = 0;
			t->p_up = t->p_down = 1;
		}
	}
	if (noise_out)
		*noise_out = noise;
	if (prior_out)
		*prior_out = prior;
	return 0;
}
