// SPDX-License-Identifier: MIT
/* The smallest regression a check could detect with 80% probability (gate/power.h). */
#include <math.h>

#include "gate/power.h"

/* Standard error (samples) of a function at mean samples a run, changed by d. */
static double power_se(const struct gate_power_model *m, double mean, double d)
{
	double m0 = mean + d / 2, s02 = m->prior.s02 > 0 ? m->prior.s02 : 1;
	double var = s02 * gate_noise_var(&m->noise, m0);

	if (var < fmin(m0, 1.0))
		var = fmin(m0, 1.0);
	return sqrt(var * (1.0 / (double)m->kb + 1.0 / (double)m->kh));
}

static double power_df(const struct gate_power_model *m)
{
	return m->prior.d0 + (double)(m->kb + m->kh - 2);
}

/* The estimate must clear this many samples: the test's threshold or the floors. */
static double power_threshold(const struct gate_power_model *m, double mean, double se,
			      int *at_floor)
{
	double level = m->q / (double)(m->nr_tests ? m->nr_tests : 1);
	double crit = gate_t_quantile(1 - 2 * level, power_df(m)) * se;
	double floor = fmax(m->abs_floor * m->total, m->rel_floor * mean);

	*at_floor = floor > crit;
	return fmax(crit, floor);
}

static double mde_counts(const struct gate_power_model *m, double mean, int *at_floor)
{
	double t80 = gate_t_quantile(0.6, power_df(m)); /* one-sided 0.8 */
	double d = 0;
	int i;

	for (i = 0; i < 50; i++) {
		double se = power_se(m, mean, d);
		double nd = power_threshold(m, mean, se, at_floor) + t80 * se;

		if (fabs(nd - d) <= 1e-9 * (nd + 1))
			return nd;
		d = nd;
	}
	return d;
}

void gate_power_at(const struct gate_power_model *m, double share, struct gate_power *out)
{
	struct gate_power_model x = *m;
	int floor;

	out->share = share;
	out->mde = m->total > 0 ? mde_counts(m, share * m->total, &out->at_floor) / m->total : NAN;
	x.kb *= 2;
	x.kh *= 2;
	out->mde_runs2 = x.total > 0 ? mde_counts(&x, share * x.total, &floor) / x.total : NAN;
	x = *m;
	x.total *= 4;
	out->mde_samples4 = x.total > 0 ? mde_counts(&x, share * x.total, &floor) / x.total : NAN;
}

double gate_power_prob(const struct gate_power_model *m, double share, double delta)
{
	double mean = share * m->total, d = delta * m->total;
	double se = power_se(m, mean, d);
	int floor;
	double thr = power_threshold(m, mean, se, &floor);

	return gate_t_upper_p((thr - d) / se, power_df(m));
}
