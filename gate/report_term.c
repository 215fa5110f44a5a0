// SPDX-License-Identifier: MIT
/* The gate's terminal table. */
#include <math.h>
#include <stdio.h>

#include "gate/report.h"
#include "lib/report.h"

static void fmt_rel(char *buf, size_t n, double rel)
{
	if (isinf(rel))
		snprintf(buf, n, "new");
	else
		snprintf(buf, n, "%+.1f%%", 100 * rel);
}

static void fmt_q(char *buf, size_t n, double q)
{
	if (isnan(q))
		snprintf(buf, n, "-");
	else if (q < 1e-4)
		snprintf(buf, n, "<1e-4");
	else
		snprintf(buf, n, "%.4f", q);
}

static const char *row_note(const struct gate_result *r)
{
	switch (r->role) {
	case GATE_ROLE_ROOT: return "ROOT CAUSE";
	case GATE_ROLE_MOVED: return "moved (warning: inlining/outlining)";
	case GATE_ROLE_OUTSIDE: return "not own code (warning: no own caller in its stacks)";
	case GATE_ROLE_DRIFT: return "drift (warning: only kernel/library frames below it grew)";
	default: return gate_role_name(r->role);
	}
}

static void power_line(const struct gate_verdict *v, FILE *out)
{
	const struct gate_power *p = &v->power[0];

	fprintf(out, "power: %.0f samples a run, %zu + %zu runs: a function at %.1f%% of the time "
		     "is caught 80%% of the time from %+.2f%% of total (%+.0f%% of itself)",
		v->total_b, v->kb, v->kh, 100 * p->share, 100 * p->mde, 100 * p->mde / p->share);
	if (v->nr_power > 1)
		fprintf(out, ", %s (%.1f%%) from %+.2f%%", v->power_top, 100 * v->power[1].share,
			100 * v->power[1].mde);
	fprintf(out, "%s\n", p->at_floor ? " (the floors set it)" : "");
	fprintf(out, "       smaller: 2x runs %+.2f%%, 4x samples a run (-F, a longer benchmark) %+.2f%%\n",
		100 * p->mde_runs2, 100 * p->mde_samples4);
}

static void drift_lines(const struct gate_verdict *v, FILE *out)
{
	size_t i;

	if (v->nr_drift_frames) {
		fprintf(out, "kernel/library frames that grew (folded into their own callers; never a "
			     "root cause):");
		for (i = 0; i < v->nr_drift_frames && i < 5; i++)
			fprintf(out, "%s %s %+.2f pp", i ? "," : "", v->drift_frames[i].name,
				100 * v->drift_frames[i].delta);
		fputc('\n', out);
	}
	if (v->nr_drift)
		fprintf(out, "environment drift (warning): %zu flag%s grew only in kernel or library "
			     "frames below own code; not failing (%s)\n", v->nr_drift,
			v->nr_drift == 1 ? "" : "s", v->mode == GATE_MODE_NOTES ?
			"the baseline note was recorded at another time" : "the sides were not run interleaved");
}

int gate_report_term(const struct gate_verdict *v, FILE *out, int verbose)
{
	size_t i, shown = 0;

	fprintf(out, "pgo gate: %s vs %s: %zu + %zu runs, %zu functions, %zu tests "
		     "(q <= %g, floors %.2g%% of total and %.3g%% of the function)\n",
		v->base_label, v->head_label, v->kb, v->kh, v->nr_funcs, v->nr_tests,
		v->opts.q, 100 * v->opts.abs_floor, 100 * v->opts.rel_floor);
	fprintf(out, "noise model: self phi %.3g alpha %.3g d0 %.3g, inclusive phi %.3g alpha %.3g "
		"d0 %.3g\n", v->noise_self.phi, v->noise_self.alpha, v->prior_self.d0,
		v->noise_incl.phi, v->noise_incl.alpha, v->prior_incl.d0);
	fprintf(out, "mode: %s\n", gate_mode_name(v->mode));
	power_line(v, out);
	fprintf(out, "\n%-32s %4s %7s %7s %8s %8s %19s %7s  %s\n", "function", "kind", "base%",
		"head%", "delta_pp", "rel", "95% CI (pp)", "q", "");
	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r = &v->results[i];
		char rel[16], q[16], ci[40];
		int notable = r->flagged || r->improved || r->moved;

		if (!notable && !(verbose && r->tested) && !(shown < 5 && r->tested))
			continue;
		shown++;
		fmt_rel(rel, sizeof(rel), r->rel);
		fmt_q(q, sizeof(q), r->role == GATE_ROLE_IMPROVED ? r->q_down : r->q);
		snprintf(ci, sizeof(ci), "[%+.2f, %+.2f]", 100 * r->ci_lo, 100 * r->ci_hi);
		fprintf(out, "%-32.32s %4s %7.2f %7.2f %+8.2f %8s %19s %7s  %s", r->name,
			r->kind == GATE_SELF ? "self" : "incl", r->base_pct, r->head_pct,
			100 * r->delta, rel, ci, q, row_note(r));
		if (r->via && *r->via)
			fprintf(out, " (via %s)", r->via);
		fputc('\n', out);
	}
	if (v->nr_flagged)
		fprintf(out, "(intervals of flagged rows are false-coverage-rate adjusted for the selection)\n");
	drift_lines(v, out);
	if (v->program_valid)
		fprintf(out, "\nprogram: %s time per run %+.2f%% (Welch t %.2f, df %.1f, p %.3g)%s\n",
			gate_view_name(v->opts.view), 100 * v->program_rel, v->program.t,
			v->program.df, v->program.p,
			v->program_flag ? (v->opts.program_fail ? ": REGRESSION"
							       : ": slower (warning; runs not interleaved?)")
					: "");
	if (v->regression)
		fprintf(out, "\nverdict: REGRESSION in %zu root cause%s\n", v->nr_root,
			v->nr_root == 1 ? "" : "s");
	else
		fprintf(out, "\nverdict: pass (no function regressed beyond noise%s%s)\n",
			v->nr_moved ? "; code motion reported as a warning" : "",
			v->nr_drift ? "; environment drift reported as a warning" : "");
	if (ferror(out))
		return pgo_error("cannot write the report");
	return 0;
}
