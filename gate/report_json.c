// SPDX-License-Identifier: MIT
/* The full verdict as JSON ("pgo-verdict" v1), for CI tooling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gate/report.h"
#include "lib/atomicfile.h"
#include "lib/report.h"

/* JSON has no NaN or infinity: those become null (the "new" flag says why). */
static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static int set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *result_json(const struct gate_result *r)
{
	json_t *o = json_object();
	int e = 0;

	if (!o)
		return NULL;
	e |= set(o, "function", json_string(r->name));
	e |= set(o, "kind", json_string(r->kind == GATE_SELF ? "self" : "inclusive"));
	e |= set(o, "tested", json_boolean(r->tested));
	e |= set(o, "base_mean", num(r->t.mean_b));
	e |= set(o, "head_mean", num(r->t.mean_h));
	e |= set(o, "base_pct", num(r->base_pct));
	e |= set(o, "head_pct", num(r->head_pct));
	e |= set(o, "delta", num(r->delta));
	e |= set(o, "delta_pp", num(100 * r->delta));
	e |= set(o, "rel", num(r->rel));
	e |= set(o, "new", json_boolean(isinf(r->rel)));
	e |= set(o, "ci_low", num(r->ci_lo));
	e |= set(o, "ci_high", num(r->ci_hi));
	e |= set(o, "ci_fcr", json_boolean(r->ci_fcr));
	e |= set(o, "t", num(r->t.t));
	e |= set(o, "df", num(r->t.df));
	e |= set(o, "p", num(r->t.p_up));
	e |= set(o, "q", num(r->q));
	e |= set(o, "q_decrease", num(r->q_down));
	e |= set(o, "flagged", json_boolean(r->flagged));
	e |= set(o, "root_cause", json_boolean(r->root_cause));
	e |= set(o, "moved", json_boolean(r->moved));
	e |= set(o, "outside", json_boolean(r->outside));
	e |= set(o, "improved", json_boolean(r->improved));
	e |= set(o, "drift", json_boolean(r->drift));
	e |= set(o, "own_delta", num(r->own_delta));
	/* self rows: the function's own spread over the trend's, the s0^2 of its power */
	e |= set(o, "noise_scale", r->kind == GATE_SELF && r->t.v0 > 0 ? num(r->t.vmod / r->t.v0)
							       : json_null());
	e |= set(o, "role", json_string(gate_role_name(r->role)));
	e |= set(o, "via", r->via && *r->via ? json_string(r->via) : json_null());
	if (e) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *prior_json(const struct gate_noise *n, const struct gate_prior *p)
{
	json_t *o = json_object();

	if (!o || set(o, "phi", num(n->phi)) || set(o, "alpha", num(n->alpha)) || set(o, "d0", num(p->d0)) ||
	    set(o, "d0_infinite", json_boolean(isinf(p->d0))) || set(o, "s0_sq", num(p->s02))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *power_entry(const struct gate_power *p, const char *function)
{
	json_t *o = json_object();

	if (!o || set(o, "function", function ? json_string(function) : json_null()) ||
	    set(o, "share", num(p->share)) || set(o, "delta", num(p->mde)) ||
	    set(o, "delta_pp", num(100 * p->mde)) || set(o, "rel", num(p->mde / p->share)) ||
	    set(o, "floor_bound", json_boolean(p->at_floor)) ||
	    set(o, "with_2x_runs", num(p->mde_runs2)) ||
	    set(o, "with_4x_samples", num(p->mde_samples4))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * The power model's inputs (struct gate_power_model), so that a reader can compute the
 * detection probability of any share and change as gate_power_prob() does.
 */
static json_t *power_model_json(const struct gate_power_model *m)
{
	json_t *o = json_object();

	if (!o || set(o, "total", num(m->total)) || set(o, "runs_base", json_integer((json_int_t)m->kb)) ||
	    set(o, "runs_head", json_integer((json_int_t)m->kh)) || set(o, "phi", num(m->noise.phi)) ||
	    set(o, "alpha", num(m->noise.alpha)) || set(o, "s0_sq", num(m->prior.s02)) ||
	    set(o, "d0", num(m->prior.d0)) || set(o, "d0_infinite", json_boolean(isinf(m->prior.d0))) ||
	    set(o, "tests", json_integer((json_int_t)m->nr_tests)) || set(o, "q", num(m->q)) ||
	    set(o, "abs_floor", num(m->abs_floor)) || set(o, "rel_floor", num(m->rel_floor))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "power": the 80%-detectable regressions (gate/power.h). */
static json_t *power_json(const struct gate_verdict *v)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;
	int e = 0;

	if (!o || !a) {
		json_decref(o);
		json_decref(a);
		return NULL;
	}
	e |= set(o, "probability", json_real(0.8));
	e |= set(o, "samples_per_run", num(v->total_b));
	e |= set(o, "model", power_model_json(&v->power_model));
	for (i = 0; i < v->nr_power; i++)
		e |= json_array_append_new(a, power_entry(&v->power[i], i ? v->power_top : NULL));
	e |= json_object_set_new(o, "detectable", a);
	if (e) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "drift": own functions flagged only through kernel or library frames, and those frames. */
static json_t *drift_json(const struct gate_verdict *v)
{
	json_t *o = json_object(), *fn = json_array(), *fr = json_array();
	size_t i;
	int e = 0;

	if (!o || !fn || !fr) {
		json_decref(o);
		json_decref(fn);
		json_decref(fr);
		return NULL;
	}
	e |= set(o, "warning", json_boolean(v->nr_drift > 0));
	for (i = 0; i < v->nr_results; i++)
		if (v->results[i].role == GATE_ROLE_DRIFT)
			e |= json_array_append_new(fn, json_string(v->results[i].name));
	for (i = 0; i < v->nr_drift_frames; i++) {
		const struct gate_drift_frame *d = &v->drift_frames[i];
		json_t *x = json_object();

		if (!x || set(x, "function", json_string(d->name)) || set(x, "delta", num(d->delta)) ||
		    set(x, "delta_pp", num(100 * d->delta)) || set(x, "base_pct", num(d->base_pct)) ||
		    set(x, "head_pct", num(d->head_pct)) || set(x, "q", num(d->q))) {
			json_decref(x);
			e = -1;
			break;
		}
		e |= json_array_append_new(fr, x);
	}
	e |= json_object_set_new(o, "functions", fn);
	e |= json_object_set_new(o, "frames", fr);
	if (e) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *globs_json(const struct gate_opts *o)
{
	json_t *a;
	size_t i;

	if (!o->nr_own_globs)
		return json_null();
	a = json_array();
	for (i = 0; a && i < o->nr_own_globs; i++)
		if (json_array_append_new(a, json_string(o->own_globs[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int gate_report_json(const struct gate_verdict *v, const char *path)
{
	json_t *root = json_object(), *arr = json_array(), *sf = json_array(), *opt = json_object();
	json_t *prog = json_object(), *roots = json_array();
	char *text = NULL;
	size_t i;
	int e = 0, err = -1;

	if (!root || !arr || !sf || !opt || !prog || !roots) {
		pgo_error("out of memory");
		json_decref(arr);
		json_decref(sf);
		json_decref(opt);
		json_decref(prog);
		json_decref(roots);
		goto out;
	}
	e |= set(root, "format", json_string(GATE_VERDICT_FORMAT));
	e |= set(root, "version", json_integer(GATE_VERDICT_VERSION));
	e |= set(root, "tool", json_string("pgo " PGO_VERSION));
	e |= set(root, "verdict", json_string(gate_verdict_status(v)));
	e |= set(root, "regression", json_boolean(v->regression));
	e |= set(root, "base", json_string(v->base_label));
	e |= set(root, "head", json_string(v->head_label));
	e |= set(root, "view", json_string(gate_view_name(v->opts.view)));
	e |= set(root, "mode", json_string(gate_mode_name(v->mode)));
	e |= set(root, "base_runs", json_integer((json_int_t)v->kb));
	e |= set(root, "head_runs", json_integer((json_int_t)v->kh));
	e |= set(root, "functions", json_integer((json_int_t)v->nr_funcs));
	e |= set(root, "tests", json_integer((json_int_t)v->nr_tests));
	e |= set(root, "base_total", num(v->total_b));
	e |= set(root, "head_total", num(v->total_h));
	e |= set(opt, "q", num(v->opts.q));
	e |= set(opt, "abs_floor", num(v->opts.abs_floor));
	e |= set(opt, "rel_floor", num(v->opts.rel_floor));
	e |= set(opt, "program_floor", num(v->opts.program_floor));
	e |= set(opt, "program_fail", json_boolean(v->opts.program_fail));
	e |= set(opt, "ci_level", num(v->opts.ci_level));
	e |= set(opt, "own_binaries", globs_json(&v->opts));
	e |= json_object_set_new(root, "options", opt);
	for (i = 0; i < v->kb + v->kh; i++)
		e |= json_array_append_new(sf, num(v->sf[i]));
	e |= json_object_set_new(root, "size_factors", sf);
	e |= set(root, "self_noise", prior_json(&v->noise_self, &v->prior_self));
	e |= set(root, "inclusive_noise", prior_json(&v->noise_incl, &v->prior_incl));
	e |= set(prog, "valid", json_boolean(v->program_valid));
	e |= set(prog, "rel", num(v->program_rel));
	e |= set(prog, "t", num(v->program.t));
	e |= set(prog, "df", num(v->program.df));
	e |= set(prog, "p", num(v->program.p));
	e |= set(prog, "flagged", json_boolean(v->program_flag));
	e |= json_object_set_new(root, "program", prog);
	e |= set(root, "power", power_json(v));
	e |= set(root, "drift", drift_json(v));
	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r = &v->results[i];
		json_t *rj;

		if (!r->tested && r->t.mean_b == 0 && r->t.mean_h == 0)
			continue;
		rj = result_json(r);
		if (!rj) {
			e = -1;
			break;
		}
		if (r->root_cause)
			e |= json_array_append(roots, json_object_get(rj, "function"));
		e |= json_array_append_new(arr, rj);
	}
	e |= json_object_set_new(root, "root_causes", roots);
	e |= json_object_set_new(root, "results", arr);
	if (e) {
		pgo_error("out of memory");
		goto out;
	}
	text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!text) {
		pgo_error("out of memory");
		goto out;
	}
	err = pgo_write_file_atomic(path, text, strlen(text));
	if (!err && !strcmp(path, "-"))
		err = pgo_write_file_atomic(path, "\n", 1);
out:
	free(text);
	json_decref(root);
	return err;
}
