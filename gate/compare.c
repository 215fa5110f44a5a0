// SPDX-License-Identifier: MIT
/* Compare two profiles per function (self and inclusive) and decide the gate's verdict. */
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate/compare.h"
#include "gate/views.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int check_inputs(const struct gate_profile *b, const struct gate_profile *h,
			const struct gate_opts *o)
{
	if (b->nr_runs < 2)
		return pgo_error("'%s' has %zu run; the gate needs at least 2 runs per side "
				 "(record with -r 5)", b->label, b->nr_runs);
	if (h->nr_runs < 2)
		return pgo_error("'%s' has %zu run; the gate needs at least 2 runs per side "
				 "(collect with -r 5)", h->label, h->nr_runs);
	if (!b->views[o->view].present || !h->views[o->view].present)
		return pgo_error("view '%s' is missing from '%s'", gate_view_name(o->view),
				 b->views[o->view].present ? h->label : b->label);
	if (!o->allow_other_binary &&
	    strcmp(base_name(b->binary_path), base_name(h->binary_path)))
		return pgo_error("'%s' profiles binary '%s' but '%s' profiles '%s'; a baseline "
				 "must come from the same program (--allow-other-binary overrides)",
				 b->label, b->binary_path, h->label, h->binary_path);
	if (strcmp(b->event, h->event))
		return pgo_error("'%s' sampled event '%s' but '%s' sampled '%s'; collect both "
				 "sides with the same event", b->label, b->event, h->label, h->event);
	return 0;
}

/* Is f the benchmark's own code, as far as either side knows? Unknown on both: yes. */
static int is_own(const struct gate_profile *b, const struct gate_profile *h, uint32_t f)
{
	enum gate_frame_kind kb = gate_profile_frame_kind(b, f), kh = gate_profile_frame_kind(h, f);

	if (kb == GATE_FRAME_OWN || kh == GATE_FRAME_OWN)
		return 1;
	return kb == GATE_FRAME_UNKNOWN && kh == GATE_FRAME_UNKNOWN;
}

static const char *const mode_names[] = { "files", "notes", "interleaved" };

const char *gate_mode_name(enum gate_mode m)
{
	return (size_t)m < PGO_ARRAY_SIZE(mode_names) ? mode_names[m] : "?";
}

int gate_mode_parse(const char *name)
{
	size_t i;

	for (i = 0; i < PGO_ARRAY_SIZE(mode_names); i++)
		if (!strcmp(name, mode_names[i]))
			return (int)i;
	return -1;
}

const char *gate_role_name(enum gate_role r)
{
	switch (r) {
	case GATE_ROLE_ROOT: return "root cause";
	case GATE_ROLE_ROOT_INCL: return "root cause (inclusive)";
	case GATE_ROLE_VIA: return "via";
	case GATE_ROLE_MOVED: return "moved";
	case GATE_ROLE_IMPROVED: return "improved";
	case GATE_ROLE_OUTSIDE: return "not own code";
	case GATE_ROLE_DRIFT: return "drift";
	default: return "";
	}
}

static int result_rank(const struct gate_result *r)
{
	switch (r->role) {
	case GATE_ROLE_ROOT: return 0;
	case GATE_ROLE_ROOT_INCL: return 1;
	case GATE_ROLE_VIA: return 2;
	case GATE_ROLE_MOVED: return 3;
	case GATE_ROLE_OUTSIDE: return 4;
	case GATE_ROLE_DRIFT: return 5;
	case GATE_ROLE_IMPROVED: return 6;
	default: return 7;
	}
}

static int result_cmp(const void *a, const void *b)
{
	const struct gate_result *x = a, *y = b;
	int rx = result_rank(x), ry = result_rank(y);
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (rx != ry)
		return rx - ry;
	if (dx != dy)
		return (dx < dy) - (dx > dy);
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return strcmp(x->name, y->name);
}

static double view_time(const struct gate_run *r, enum gate_view_kind v)
{
	switch (v) {
	case GATE_VIEW_CPU:
		return (double)r->cpu_ns;
	case GATE_VIEW_OFFCPU:
		return (double)r->offcpu_ns;
	default:
		return r->duration_ns ? (double)r->duration_ns : (double)(r->cpu_ns + r->offcpu_ns);
	}
}

static int program_check(const struct gate_profile *b, const struct gate_profile *h,
			 const struct gate_opts *o, struct gate_verdict *v)
{
	double *la, *lb;
	size_t i;
	int err = -1;

	la = pgo_calloc(b->nr_runs, sizeof(*la));
	lb = pgo_calloc(h->nr_runs, sizeof(*lb));
	if (!la || !lb)
		goto out;
	err = 0;
	for (i = 0; i < b->nr_runs; i++) {
		double t = view_time(&b->runs[i], o->view);

		if (!(t > 0))
			goto out; /* no per-run time recorded: the check is not possible */
		la[i] = log(t);
	}
	for (i = 0; i < h->nr_runs; i++) {
		double t = view_time(&h->runs[i], o->view);

		if (!(t > 0))
			goto out;
		lb[i] = log(t);
	}
	if (gate_welch(la, b->nr_runs, lb, h->nr_runs, &v->program)) {
		err = -1;
		goto out;
	}
	v->program_valid = 1;
	v->program_rel = exp(v->program.diff) - 1;
	v->program_flag = v->program.p <= o->q && v->program_rel >= o->program_floor;
out:
	free(la);
	free(lb);
	return err;
}

/* Fill one result row from its test. */
static void fill_result(struct gate_result *res, const struct gate_ftest *t,
			const struct gate_verdict *v, const struct gate_opts *o, double tq)
{
	double diff = t->mean_h - t->mean_b;

	res->t = *t;
	res->base_pct = v->total_b > 0 ? 100 * t->mean_b / v->total_b : 0;
	res->head_pct = v->total_h > 0 ? 100 * t->mean_h / v->total_h : 0;
	res->delta = v->total_b > 0 ? diff / v->total_b : 0;
	res->rel = t->mean_b > 0 ? diff / t->mean_b : (diff > 0 ? INFINITY : 0);
	res->ci_lo = v->total_b > 0 ? (diff - tq * t->se) / v->total_b : 0;
	res->ci_hi = v->total_b > 0 ? (diff + tq * t->se) / v->total_b : 0;
	res->tested = t->m0 > 0 && t->m0 >= 0.5 * o->abs_floor * v->total_b;
	res->q = res->q_down = NAN;
}

/* One comparison in progress: the inputs, the verdict being filled, the work arrays. */
struct cmp {
	const struct gate_profile *b, *h;
	const struct gate_opts *o;
	struct gate_verdict *v;
	struct gate_sides raw;      /* the view's stacks as recorded */
	struct gate_sides sd;       /* own-code stacks: what is tested */
	struct gate_sides sd_leaf;  /* the same, of the samples whose leaf is own code */
	struct gate_view own_views[2], leaf_views[2];
	unsigned char *own;    /* function id -> own code */
	unsigned char *leaf_ok;/* function id -> own code or a thread state */
	size_t nf, nr;
	int *side;             /* run column -> 0 base, 1 head */
	double *self, *incl;   /* nf x nr count matrices, normalised by the size factors */
	double *lself, *lincl; /* the same of own-leaf samples */
	double *rself;         /* self counts of the unfolded stacks */
	struct gate_ftest *ts, *ti, *tls, *tli, *trs;
	double *p, *q;         /* BH work: one per result row */
};

static void cmp_release(struct cmp *c)
{
	int k;

	for (k = 0; k < 2; k++) {
		gate_view_release(&c->own_views[k]);
		gate_view_release(&c->leaf_views[k]);
	}
	free(c->own);
	free(c->leaf_ok);
	free(c->lself);
	free(c->lincl);
	free(c->rself);
	free(c->tls);
	free(c->tli);
	free(c->trs);
	free(c->side);
	free(c->self);
	free(c->incl);
	free(c->ts);
	free(c->ti);
	free(c->p);
	free(c->q);
}

/* Check the inputs, allocate the verdict and the work arrays. */
static int cmp_init(struct cmp *c, const struct gate_profile *b, const struct gate_profile *h,
		    const struct gate_opts *o)
{
	struct gate_verdict *v;
	size_t nf = b->names->nr, kb = b->nr_runs, kh = h->nr_runs, nr = kb + kh, r;

	memset(c, 0, sizeof(*c));
	c->b = b;
	c->h = h;
	c->o = o;
	c->nf = nf;
	c->nr = nr;
	c->raw = (struct gate_sides){ { &b->views[o->view], &h->views[o->view] }, { kb, kh } };
	c->sd = c->sd_leaf = c->raw;
	if (b->names != h->names)
		PGO_BUG("profiles compared with different name tables");
	if (check_inputs(b, h, o))
		return -1;
	if (nr && nf > GATE_MAX_CMP_CELLS / nr) {
		struct pgo_buf what = PGO_BUF_INIT;

		pgo_buf_addf(&what, "'%s' against '%s'", b->label, h->label);
		gate_check_cells(nf, nr, GATE_MAX_CMP_CELLS, "functions", pgo_buf_str(&what));
		pgo_buf_release(&what);
		return -1;
	}
	v = c->v = pgo_calloc(1, sizeof(*v));
	if (!v)
		return -1;
	v->opts = *o;
	v->mode = o->mode;
	v->kb = kb;
	v->kh = kh;
	v->nr_funcs = nf;
	v->base_label = pgo_strdup(b->label);
	v->head_label = pgo_strdup(h->label);
	v->sf = pgo_calloc(nr, sizeof(*v->sf));
	v->results = pgo_calloc(2 * nf + 1, sizeof(*v->results));
	c->side = pgo_calloc(nr, sizeof(*c->side));
	c->self = pgo_calloc(nf * nr + 1, sizeof(*c->self));
	c->incl = pgo_calloc(nf * nr + 1, sizeof(*c->incl));
	c->ts = pgo_calloc(nf + 1, sizeof(*c->ts));
	c->ti = pgo_calloc(nf + 1, sizeof(*c->ti));
	c->p = pgo_calloc(2 * nf + 1, sizeof(*c->p));
	c->q = pgo_calloc(2 * nf + 1, sizeof(*c->q));
	c->lself = pgo_calloc(nf * nr + 1, sizeof(*c->lself));
	c->lincl = pgo_calloc(nf * nr + 1, sizeof(*c->lincl));
	c->rself = pgo_calloc(nf * nr + 1, sizeof(*c->rself));
	c->tls = pgo_calloc(nf + 1, sizeof(*c->tls));
	c->tli = pgo_calloc(nf + 1, sizeof(*c->tli));
	c->trs = pgo_calloc(nf + 1, sizeof(*c->trs));
	if (!v->base_label || !v->head_label || !v->sf || !v->results || !c->side || !c->self ||
	    !c->incl || !c->ts || !c->ti || !c->p || !c->q || !c->lself || !c->lincl ||
	    !c->rself || !c->tls || !c->tli || !c->trs)
		return -1;
	for (r = kb; r < nr; r++)
		c->side[r] = 1;
	return 0;
}

/* Does a DSO basename match one of the -b globs? */
static int own_glob(const struct gate_opts *o, const char *dso)
{
	size_t i;

	for (i = 0; i < o->nr_own_globs; i++)
		if (!fnmatch(o->own_globs[i], dso, 0))
			return 1;
	return 0;
}

/* With -b: own[f] for the functions of p's DSOs that match a glob. */
static void own_by_glob(struct cmp *c, const struct gate_profile *p)
{
	const struct convert_stackset *set = &p->set;
	size_t i;

	for (i = 0; i < set->frame_dsos.cap; i++) {
		const struct pgo_u64map_slot *sl = &set->frame_dsos.slots[i];
		long f;

		if (!sl->used || !own_glob(c->o, pgo_strtab_str(&set->dsos, (size_t)(sl->key >> 32))))
			continue;
		f = gate_profile_find_function(p, pgo_strtab_str(&set->frame_names,
								 (size_t)(sl->key & 0xffffffffu)));
		if (f >= 0 && (size_t)f < c->nf)
			c->own[f] = 1;
	}
}

/* Which functions are the benchmark's own code (gate_opts.own_globs). */
static int own_table(struct cmp *c)
{
	size_t f;

	c->own = pgo_calloc(c->nf + 1, 1);
	c->leaf_ok = pgo_calloc(c->nf + 1, 1);
	if (!c->own || !c->leaf_ok)
		return -1;
	for (f = 0; f < c->nf; f++) {
		enum gate_frame_kind kb = gate_profile_frame_kind(c->b, (uint32_t)f);
		enum gate_frame_kind kh = gate_profile_frame_kind(c->h, (uint32_t)f);

		c->own[f] = (unsigned char)is_own(c->b, c->h, (uint32_t)f);
		/* with -b, a function whose DSO is known is own only if a glob says so */
		if (c->o->nr_own_globs && (kb == GATE_FRAME_OWN || kb == GATE_FRAME_LIB ||
					   kh == GATE_FRAME_OWN || kh == GATE_FRAME_LIB))
			c->own[f] = 0;
		c->leaf_ok[f] = c->own[f] || kb == GATE_FRAME_STATE || kh == GATE_FRAME_STATE;
	}
	if (c->o->nr_own_globs) {
		own_by_glob(c, c->b);
		own_by_glob(c, c->h);
		for (f = 0; f < c->nf; f++)
			c->leaf_ok[f] |= c->own[f];
	}
	return 0;
}

/*
 * Kernel, library and thread-state frames are nothing a benchmark author changes: in
 * every view keep the benchmark's own frames only, so their time lands on the first own
 * function above them (the caller of pthread_mutex_lock, of malloc that faults) and
 * that is what gets tested and named. The own-leaf views keep only the samples whose
 * leaf is own code (or, off-CPU, a thread state: waiting is what that view is about),
 * to tell an own function's own work from what grew in the frames below it.
 */
static int fold_own_code(struct cmp *c)
{
	int k;

	if (own_table(c))
		return -1;
	for (k = 0; k < 2; k++) {
		if (gate_view_own_code(c->raw.v[k], c->raw.k[k], c->own, NULL, &c->own_views[k]) ||
		    gate_view_own_code(c->raw.v[k], c->raw.k[k], c->own, c->leaf_ok, &c->leaf_views[k]))
			return -1;
		c->sd.v[k] = &c->own_views[k];
		c->sd_leaf.v[k] = &c->leaf_views[k];
	}
	return 0;
}

/*
 * Count matrices (own code, own-leaf, unfolded), size factors (from own-code self
 * counts, which are disjoint), side totals.
 */
static int normalise(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	size_t f, r, nf = c->nf, nr = c->nr;

	if (gate_sides_matrices(&c->sd, nf, c->self, c->incl) ||
	    gate_sides_matrices(&c->sd_leaf, nf, c->lself, c->lincl) ||
	    gate_sides_matrices(&c->raw, nf, c->rself, NULL))
		return -1;
	if (gate_size_factors(c->self, nf, nr, c->side, &c->o->tmm, v->sf))
		return -1;
	for (f = 0; f < nf; f++) {
		for (r = 0; r < nr; r++) {
			c->self[f * nr + r] /= v->sf[r];
			c->incl[f * nr + r] /= v->sf[r];
			c->lself[f * nr + r] /= v->sf[r];
			c->lincl[f * nr + r] /= v->sf[r];
			c->rself[f * nr + r] /= v->sf[r];
		}
	}
	for (r = 0; r < nr; r++) {
		double t = 0;

		for (f = 0; f < nf; f++)
			t += c->self[f * nr + r];
		if (c->side[r])
			v->total_h += t / v->kh;
		else
			v->total_b += t / v->kb;
	}
	if (!(v->total_b > 0))
		return pgo_error("'%s' has no samples in view '%s'; nothing to compare against",
				 c->b->label, gate_view_name(c->o->view));
	return 0;
}

/* The moderated tests of every function's self and inclusive time: rows 2f and 2f + 1. */
static int test_rows(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	size_t f, i;

	if (gate_moderated_tests(c->self, c->nf, c->nr, c->side, c->o->min_m0, 1, c->ts,
				 &v->noise_self, &v->prior_self) ||
	    gate_moderated_tests(c->incl, c->nf, c->nr, c->side, c->o->min_m0, 0, c->ti,
				 &v->noise_incl, &v->prior_incl) ||
	    gate_moderated_tests(c->lself, c->nf, c->nr, c->side, c->o->min_m0, 1, c->tls, NULL, NULL) ||
	    gate_moderated_tests(c->lincl, c->nf, c->nr, c->side, c->o->min_m0, 0, c->tli, NULL, NULL) ||
	    gate_moderated_tests(c->rself, c->nf, c->nr, c->side, c->o->min_m0, 1, c->trs, NULL, NULL))
		return -1;
	for (f = 0; f < c->nf; f++) {
		const char *name = pgo_strtab_str(c->b->names, f);

		for (i = 0; i < 2; i++) {
			struct gate_result *res = &v->results[2 * f + i];
			const struct gate_ftest *t = i ? &c->ti[f] : &c->ts[f];

			res->kind = i ? GATE_INCL : GATE_SELF;
			res->name = pgo_strdup(name);
			if (!res->name)
				return -1;
			fill_result(res, t, v, c->o, gate_t_quantile(c->o->ci_level, t->df));
			t = i ? &c->tli[f] : &c->tls[f];
			res->own_delta = (t->mean_h - t->mean_b) / v->total_b;
		}
	}
	v->nr_results = 2 * c->nf;
	return 0;
}

/* What this check could have caught: a function at 5% and the hottest own function. */
static int power_line(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	struct gate_power_model *m = &v->power_model;
	size_t f, top = SIZE_MAX;

	m->total = v->total_b;
	m->kb = v->kb;
	m->kh = v->kh;
	m->noise = v->noise_self;
	m->prior = v->prior_self;
	m->nr_tests = v->nr_tests;
	m->q = c->o->q;
	m->abs_floor = c->o->abs_floor;
	m->rel_floor = c->o->rel_floor;
	gate_power_at(m, 0.05, &v->power[0]);
	v->nr_power = 1;
	for (f = 0; f < c->nf; f++)
		if (c->own[f] && (top == SIZE_MAX || c->ts[f].mean_b > c->ts[top].mean_b))
			top = f;
	if (top == SIZE_MAX || !(c->ts[top].mean_b > 0))
		return 0;
	v->power_top = pgo_strdup(pgo_strtab_str(c->b->names, top));
	if (!v->power_top)
		return -1;
	gate_power_at(m, c->ts[top].mean_b / v->total_b, &v->power[1]);
	v->nr_power = 2;
	return 0;
}

/* Benjamini-Hochberg over every tested hypothesis, self and inclusive together; floors. */
static int flag_rows(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	const struct gate_opts *o = c->o;
	size_t i, m = 0;

	for (i = 0; i < v->nr_results; i++)
		c->p[i] = v->results[i].tested ? v->results[i].t.p_up : NAN;
	if (gate_bh_adjust(c->p, v->nr_results, c->q))
		return -1;
	for (i = 0; i < v->nr_results; i++) {
		v->results[i].q = c->q[i];
		m += v->results[i].tested;
	}
	v->nr_tests = m;
	for (i = 0; i < v->nr_results; i++)
		c->p[i] = v->results[i].tested ? v->results[i].t.p_down : NAN;
	if (gate_bh_adjust(c->p, v->nr_results, c->q))
		return -1;
	for (i = 0; i < v->nr_results; i++) {
		struct gate_result *res = &v->results[i];

		res->q_down = c->q[i];
		if (!res->tested)
			continue;
		res->flagged = res->q <= o->q && res->delta >= o->abs_floor &&
			       res->rel >= o->rel_floor;
		res->improved = res->q_down <= o->q && -res->delta >= o->abs_floor &&
				-res->rel >= o->rel_floor;
	}
	return 0;
}

/*
 * Code motion (§6.3): a self-time increase that its own subtree gives back is code
 * that moved (inlining, outlining), not new work. For a new or vanished symbol the
 * subtree is its caller's.
 */
static void code_motion(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	size_t f;

	for (f = 0; f < c->nf; f++) {
		struct gate_result *rs = &v->results[2 * f], *ri = &v->results[2 * f + 1];
		/* new or gone: absent from one side; no self time on both sides is not that */
		int fresh = c->ti[f].mean_b == 0 || c->ti[f].mean_h == 0;

		if (rs->flagged && !fresh && ri->delta < 0.5 * rs->delta)
			rs->moved = 1;
		if (fresh && (rs->flagged || ri->flagged)) {
			uint32_t par = gate_sides_main_parent(&c->sd, (uint32_t)f, c->nf);
			double d = rs->delta > ri->delta ? rs->delta : ri->delta;

			if (par != UINT32_MAX && v->results[2 * par + 1].delta < 0.5 * d) {
				rs->moved = rs->flagged;
				ri->moved = ri->flagged;
			}
		}
	}
}

/*
 * Environment drift: a flagged own function whose samples with an own leaf did not grow
 * beyond noise and floors (the same rule, its p unadjusted: it is a follow-up of a flag)
 * grew only in the kernel or library frames below it: the page cache, THP, the kernel
 * or a neighbour changed between recordings. A warning, unless base and head ran
 * interleaved, where drift cancels and the function's calls are what changed.
 */
static int own_parts(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	const struct gate_opts *o = c->o;
	size_t i;

	for (i = 0; i < v->nr_results; i++) {
		struct gate_result *res = &v->results[i];
		const struct gate_ftest *t = i % 2 ? &c->tli[i / 2] : &c->tls[i / 2];
		double rel;

		if (!res->flagged || res->moved || !c->own[i / 2] || o->mode == GATE_MODE_INTERLEAVED)
			continue;
		rel = t->mean_b > 0 ? (t->mean_h - t->mean_b) / t->mean_b : INFINITY;
		if (t->p_up <= o->q && res->own_delta >= o->abs_floor && rel >= o->rel_floor)
			continue;
		res->drift = 1;
		v->nr_drift++;
	}
	return 0;
}

static int drift_cmp(const void *a, const void *b)
{
	const struct gate_drift_frame *x = a, *y = b;

	if (x->delta != y->delta)
		return (x->delta < y->delta) - (x->delta > y->delta);
	return strcmp(x->name, y->name);
}

/*
 * The kernel and library functions whose own time grew: the unfolded self counts of
 * the functions that are not own code, tested under Benjamini-Hochberg among
 * themselves with the floors of the gate. Reported, never root causes.
 */
static int drift_frames(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	const struct gate_opts *o = c->o;
	size_t f, n = 0;

	for (f = 0; f < c->nf; f++) {
		const struct gate_ftest *t = &c->trs[f];
		int tested = !c->leaf_ok[f] && t->m0 > 0 && t->m0 >= 0.5 * o->abs_floor * v->total_b;

		c->p[f] = tested ? t->p_up : NAN;
	}
	if (gate_bh_adjust(c->p, c->nf, c->q))
		return -1;
	v->drift_frames = pgo_calloc(c->nf + 1, sizeof(*v->drift_frames));
	if (!v->drift_frames)
		return -1;
	for (f = 0; f < c->nf; f++) {
		const struct gate_ftest *t = &c->trs[f];
		struct gate_drift_frame *d = &v->drift_frames[n];
		double diff = t->mean_h - t->mean_b;

		if (isnan(c->q[f]) || c->q[f] > o->q || diff < o->abs_floor * v->total_b ||
		    (t->mean_b > 0 && diff < o->rel_floor * t->mean_b))
			continue;
		d->name = pgo_strdup(pgo_strtab_str(c->b->names, f));
		if (!d->name)
			return -1;
		d->delta = diff / v->total_b;
		d->base_pct = 100 * t->mean_b / v->total_b;
		d->head_pct = v->total_h > 0 ? 100 * t->mean_h / v->total_h : 0;
		d->q = c->q[f];
		n++;
	}
	v->nr_drift_frames = n;
	qsort(v->drift_frames, n, sizeof(*v->drift_frames), drift_cmp);
	return 0;
}

/* Is row j's function a candidate for the root-cause list (flagged, not moved, own)? */
static int counts_as_cause(const struct cmp *c, size_t j)
{
	const struct gate_result *r = &c->v->results[j];

	return r->flagged && !r->moved && !r->drift && c->own[j / 2];
}

/* Root causes: flagged self time, and flagged inclusive nodes with no flagged descendant. */
static void root_causes(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	size_t i, j;

	for (i = 0; i < v->nr_results; i++) {
		struct gate_result *res = &v->results[i];

		if (!res->flagged || res->moved)
			continue;
		v->nr_flagged++;
		/* only the benchmark's own code can be a root cause */
		if (!c->own[i / 2]) {
			res->outside = 1;
			continue;
		}
		if (res->drift)
			continue;
		res->root_cause = 1;
		if (res->kind == GATE_SELF)
			continue;
		for (j = 0; j < v->nr_results; j++) {
			if (j / 2 == i / 2 || !counts_as_cause(c, j))
				continue;
			if (gate_sides_is_descendant(&c->sd, (uint32_t)(i / 2), (uint32_t)(j / 2))) {
				res->root_cause = 0;
				break;
			}
		}
		/* The function's own flagged self time already names it. */
		if (res->root_cause && counts_as_cause(c, i - 1))
			res->root_cause = 0;
	}
}

/* Each root cause's flagged callers, "main;process", and the counts of the verdict. */
static int via_lists(struct cmp *c)
{
	struct gate_verdict *v = c->v;
	size_t i, j;

	for (i = 0; i < v->nr_results; i++) {
		struct gate_result *res = &v->results[i];
		struct pgo_buf via = PGO_BUF_INIT;

		v->nr_moved += res->moved;
		v->nr_improved += res->improved;
		if (!res->root_cause)
			continue;
		v->nr_root++;
		for (j = 1; j < v->nr_results; j += 2) {
			const struct gate_result *a = &v->results[j];

			if (j / 2 == i / 2 || !counts_as_cause(c, j) || a->root_cause)
				continue;
			if (!gate_sides_is_descendant(&c->sd, (uint32_t)(j / 2), (uint32_t)(i / 2)))
				continue;
			if ((via.len && pgo_buf_addch(&via, ';')) || pgo_buf_adds(&via, a->name)) {
				pgo_buf_release(&via);
				return -1;
			}
		}
		res->via = pgo_buf_detach(&via);
	}
	return 0;
}

/*
 * Intervals of the selected (flagged) hypotheses are widened to false-coverage-rate
 * level 1 - R(1 - level)/m (Benjamini-Yekutieli 2005): plain 95% intervals of the
 * functions that looked worst would cover too rarely.
 */
static void fcr_intervals(struct gate_verdict *v)
{
	size_t i, m = 0;
	double level;

	for (i = 0; i < v->nr_results; i++)
		m += v->results[i].flagged;
	if (!m || !v->nr_tests)
		return;
	level = 1 - (double)m * (1 - v->opts.ci_level) / (double)v->nr_tests;
	for (i = 0; i < v->nr_results; i++) {
		struct gate_result *res = &v->results[i];
		double tq, mid = (res->ci_lo + res->ci_hi) / 2;

		if (!res->flagged)
			continue;
		tq = gate_t_quantile(level, res->t.df);
		res->ci_lo = mid - tq * res->t.se / v->total_b;
		res->ci_hi = mid + tq * res->t.se / v->total_b;
		res->ci_fcr = 1;
	}
}

static void assign_roles(struct gate_verdict *v)
{
	size_t f, i;

	for (f = 0; f < v->nr_funcs; f++) {
		for (i = 0; i < 2; i++) {
			struct gate_result *res = &v->results[2 * f + i];

			if (res->root_cause)
				res->role = GATE_ROLE_ROOT;
			else if (res->moved)
				res->role = GATE_ROLE_MOVED;
			else if (res->outside)
				res->role = GATE_ROLE_OUTSIDE;
			else if (res->drift)
				res->role = GATE_ROLE_DRIFT;
			else if (res->flagged)
				res->role = (i && v->results[2 * f].root_cause) ? GATE_ROLE_ROOT_INCL
										: GATE_ROLE_VIA;
			else if (res->improved)
				res->role = GATE_ROLE_IMPROVED;
		}
	}
}

int gate_compare(const struct gate_profile *b, const struct gate_profile *h,
		 const struct gate_opts *o, struct gate_verdict **out)
{
	struct cmp c;
	int err = -1;

	*out = NULL;
	if (cmp_init(&c, b, h, o))
		goto out;
	if (fold_own_code(&c) || normalise(&c) || test_rows(&c) || flag_rows(&c))
		goto out;
	code_motion(&c);
	if (own_parts(&c) || drift_frames(&c) || power_line(&c))
		goto out;
	root_causes(&c);
	if (via_lists(&c))
		goto out;
	fcr_intervals(c.v);
	assign_roles(c.v);
	if (program_check(b, h, o, c.v))
		goto out;
	c.v->regression = c.v->nr_root > 0 || (o->program_fail && c.v->program_flag);
	qsort(c.v->results, c.v->nr_results, sizeof(*c.v->results), result_cmp);
	err = 0;
out:
	cmp_release(&c);
	if (err)
		gate_verdict_free(c.v);
	else
		*out = c.v;
	return err;
}

void gate_verdict_free(struct gate_verdict *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v->results && i < 2 * v->nr_funcs; i++) {
		free(v->results[i].name);
		free(v->results[i].via);
	}
	for (i = 0; v->drift_frames && i < v->nr_drift_frames; i++)
		free(v->drift_frames[i].name);
	free(v->drift_frames);
	free(v->power_top);
	free(v->results);
	free(v->sf);
	free(v->base_label);
	free(v->head_label);
	free(v);
}
