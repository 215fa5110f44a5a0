// SPDX-License-Identifier: MIT
/*
 * gate_compare() on synthetic profiles from the seeded simulation model of
 * gate-statistics.md §9 (tests/helpers/gate-synth.c): 200 functions, Zipf shares,
 * realistic noise, 999 Hz x 10 s x 5 runs per side.
 */
#include <stdio.h>
#include <stdlib.h>

#define GATE_SYNTH_NO_MAIN
#include "../helpers/gate-synth.c"

#include "gate/compare.h"
#include "lib/buf.h"
#include "test.h"

struct pair {
	struct pgo_strtab names;
	struct gate_profile *b, *h;
	struct gate_verdict *v;
};

static int synth(const struct synth_opts *o, struct pgo_strtab *names, const char *label,
		 struct gate_profile **p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -1;
	err = synth_generate(o, f);
	if (fclose(f) || err) {
		free(buf);
		return -1;
	}
	err = gate_profile_parse(buf, len, label, names, p);
	free(buf);
	return err;
}

/* Baseline with seed s, head with seed s + 1000 and the given injection. */
static int run_pair(struct pair *pr, uint64_t s, char inject, double amount, int clone)
{
	struct synth_opts o = { 7, s, 200, 5, 999, 10, 1, 0, 0, 0, NULL, 0, 0, 0 };
	struct gate_opts go = GATE_OPTS_INIT;

	memset(pr, 0, sizeof(*pr));
	if (synth(&o, &pr->names, "base", &pr->b))
		return -1;
	o.seed = s + 1000;
	o.inject = inject;
	o.amount = amount;
	o.clone = clone;
	if (synth(&o, &pr->names, "head", &pr->h))
		return -1;
	return gate_compare(pr->b, pr->h, &go, &pr->v);
}

static void pair_release(struct pair *pr)
{
	gate_verdict_free(pr->v);
	gate_profile_free(pr->b);
	gate_profile_free(pr->h);
	pgo_strtab_release(&pr->names);
}

static size_t count(const struct gate_verdict *v, int root)
{
	size_t i, n = 0;

	for (i = 0; i < v->nr_results; i++)
		n += root ? v->results[i].root_cause : (v->results[i].flagged && !v->results[i].moved);
	return n;
}

static int test_aa_passes(void)
{
	uint64_t s;

	for (s = 1; s <= 8; s++) {
		struct pair pr;

		T_ASSERT(run_pair(&pr, s, 0, 0, 0) == 0);
		if (pr.v->regression || count(pr.v, 0))
			fprintf(stderr, "# seed %llu: %s flagged\n", (unsigned long long)s,
				pr.v->results[0].name);
		T_ASSERT(!pr.v->regression);
		T_ASSERT(pr.v->nr_tests > 50);
		pair_release(&pr);
	}
	return T_OK;
}

static int test_injected_regression_named(void)
{
	uint64_t s;

	for (s = 1; s <= 4; s++) {
		struct pair pr;
		const struct gate_result *r;

		T_ASSERT(run_pair(&pr, s, 'a', 0.05, 0) == 0);
		T_ASSERT(pr.v->regression);
		T_ASSERT_EQ_U64(pr.v->nr_root, 1);
		r = &pr.v->results[0];
		T_ASSERT(r->root_cause);
		T_ASSERT_STR(r->name, "fn_003");
		T_ASSERT(r->kind == GATE_SELF);
		/* The estimate covers the injected 5% of total (before the injection's own share). */
		T_ASSERT(r->ci_lo < 0.05 && r->ci_hi > 0.04);
		pair_release(&pr);
	}
	return T_OK;
}

static int test_hottest_faster_flags_nothing(void)
{
	uint64_t s;

	for (s = 1; s <= 4; s++) {
		struct pair pr;
		size_t i;
		int fn0_improved = 0;

		T_ASSERT(run_pair(&pr, s, 'f', 0.5, 0) == 0);
		T_ASSERT(!pr.v->regression);
		T_ASSERT_EQ_U64(count(pr.v, 0), 0);
		for (i = 0; i < pr.v->nr_results; i++)
			if (!strcmp(pr.v->results[i].name, "fn_000") && pr.v->results[i].kind == GATE_SELF)
				fn0_improved = pr.v->results[i].improved;
		T_ASSERT(fn0_improved);
		pair_release(&pr);
	}
	return T_OK;
}

static int test_clone_names_fold(void)
{
	struct pair pr;

	/* Head names the target fn_003.isra.0: without folding it would be new (+5% of total). */
	T_ASSERT(run_pair(&pr, 3, 0, 0, 1) == 0);
	T_ASSERT(!pr.v->regression);
	T_ASSERT(pgo_strtab_find(&pr.names, "fn_003.isra.0") < 0);
	pair_release(&pr);
	return T_OK;
}

static int test_code_motion_warns(void)
{
	struct pair pr;

	T_ASSERT(run_pair(&pr, 5, 'm', 0, 0) == 0);
	T_ASSERT(!pr.v->regression);
	T_ASSERT(pr.v->nr_moved >= 1);
	T_ASSERT(pr.v->results[0].moved || pr.v->results[1].moved);
	pair_release(&pr);
	return T_OK;
}

static int test_drift_is_program_level(void)
{
	struct pair pr;
	struct gate_opts go = GATE_OPTS_INIT;

	T_ASSERT(run_pair(&pr, 6, 'd', 0.10, 0) == 0);
	T_ASSERT(!pr.v->regression);
	T_ASSERT_EQ_U64(count(pr.v, 0), 0);
	T_ASSERT(pr.v->program_valid && pr.v->program_flag);
	T_ASSERT(pr.v->program_rel > 0.05);
	gate_verdict_free(pr.v);
	go.program_fail = 1;
	T_ASSERT(gate_compare(pr.b, pr.h, &go, &pr.v) == 0);
	T_ASSERT(pr.v->regression);
	pair_release(&pr);
	return T_OK;
}

static int test_too_few_runs(void)
{
	struct synth_opts o = { 7, 1, 50, 1, 999, 1, 1, 0, 0, 0, NULL, 0, 0, 0 };
	struct gate_opts go = GATE_OPTS_INIT;
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *b = NULL, *h = NULL;
	struct gate_verdict *v = NULL;

	T_ASSERT(synth(&o, &names, "one-run", &b) == 0);
	o.runs = 5;
	T_ASSERT(synth(&o, &names, "head", &h) == 0);
	T_ASSERT(gate_compare(b, h, &go, &v) < 0 && !v);
	gate_profile_free(b);
	gate_profile_free(h);
	pgo_strtab_release(&names);
	return T_OK;
}

static int test_other_binary(void)
{
	struct synth_opts o = { 7, 1, 50, 3, 999, 1, 1, 0, 0, 0, "/x/bench", 0, 0, 0 };
	struct gate_opts go = GATE_OPTS_INIT;
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *b = NULL, *h = NULL;
	struct gate_verdict *v = NULL;

	T_ASSERT(synth(&o, &names, "base", &b) == 0);
	o.binary = "/x/other";
	T_ASSERT(synth(&o, &names, "head", &h) == 0);
	T_ASSERT(gate_compare(b, h, &go, &v) < 0 && !v);
	go.allow_other_binary = 1;
	T_ASSERT(gate_compare(b, h, &go, &v) == 0 && v);
	gate_verdict_free(v);
	gate_profile_free(b);
	gate_profile_free(h);
	pgo_strtab_release(&names);
	return T_OK;
}

static int test_recursion_counted_once(void)
{
	static const char json[] = "{\"format\":\"pgo-profile\",\"version\":1,"
		"\"binary\":{\"path\":\"/b\"},\"event\":\"task-clock\",\"rate_hz\":1000,"
		"\"unit\":\"ns\",\"views\":[\"cpu\"],\"runs\":["
		"{\"cpu_ns\":30,\"samples\":30,\"cpu\":{\"main;f;f;g\":10,\"main;f\":10,\"main;h\":10}},"
		"{\"cpu_ns\":30,\"samples\":30,\"cpu\":{\"main;f;f;g\":10,\"main;f\":10,\"main;h\":10}}]}";
	struct gate_opts go = GATE_OPTS_INIT;
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *b = NULL, *h = NULL;
	struct gate_verdict *v = NULL;
	size_t i;
	int seen = 0;

	T_ASSERT(gate_profile_parse(json, strlen(json), "b", &names, &b) == 0);
	T_ASSERT(gate_profile_parse(json, strlen(json), "h", &names, &h) == 0);
	T_ASSERT(gate_compare(b, h, &go, &v) == 0);
	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r = &v->results[i];

		if (!strcmp(r->name, "f")) {
			T_ASSERT_NEAR(r->t.mean_b, r->kind == GATE_SELF ? 10 : 20, 1e-9);
			seen++;
		}
		if (!strcmp(r->name, "main") && r->kind == GATE_INCL)
			T_ASSERT_NEAR(r->base_pct, 100, 1e-9);
	}
	T_ASSERT(seen == 2 && !v->regression);
	gate_verdict_free(v);
	gate_profile_free(b);
	gate_profile_free(h);
	pgo_strtab_release(&names);
	return T_OK;
}

/*
 * An off-CPU profile of a lock regression: per run, ms blocked in contended()'s
 * pthread_mutex_lock (the futex in libc and the kernel), in wait_for_io()'s nanosleep,
 * and in other()'s read. with_dsos: the file says which DSO each frame is in.
 */
static char *lock_profile(double lock_ms, double io_ms, double join_ms, int with_dsos)
{
	struct pgo_buf b = PGO_BUF_INIT;
	int r, e = 0;

	e |= pgo_buf_adds(&b, "{\"format\":\"pgo-profile\",\"version\":1,"
			  "\"binary\":{\"path\":\"/x/bench\"},\"event\":\"task-clock\",\"rate_hz\":999,"
			  "\"unit\":\"ns\",\"views\":[\"cpu\",\"offcpu\"],");
	if (with_dsos)
		e |= pgo_buf_adds(&b, "\"dsos\":{\"bench\":{\"own\":true,\"frames\":[\"main\","
				  "\"worker\",\"contended\",\"wait_for_io\",\"other\"]},"
				  "\"libc.so.6\":{\"own\":false,\"frames\":[\"pthread_mutex_lock\","
				  "\"__lll_lock_wait\",\"clock_nanosleep\",\"read\",\"start_thread\","
				  "\"__pthread_clockjoin_ex\"]},"
				  "\"[kernel.kallsyms]\":{\"frames\":[\"futex_wait_[k]\"]}},");
	e |= pgo_buf_adds(&b, "\"runs\":[");
	for (r = 0; r < 5; r++) {
		/* a few percent of run-to-run noise, different for each stack */
		double n1 = 1 + 0.02 * ((r * 7 + 3) % 5 - 2), n2 = 1 + 0.02 * ((r * 3 + 1) % 5 - 2);
		double n3 = 1 + 0.02 * ((r * 2 + 4) % 5 - 2);

		e |= pgo_buf_addf(&b, "%s{\"cpu\":{\"start_thread;worker;main\":1000000},\"offcpu\":{"
				  "\"start_thread;worker;contended;pthread_mutex_lock;__lll_lock_wait;"
				  "futex_wait_[k];[sleep]\":%.0f,"
				  "\"start_thread;worker;wait_for_io;clock_nanosleep;[sleep]\":%.0f,"
				  "\"start_thread;worker;other;read;[io]\":%.0f,"
				  "\"__pthread_clockjoin_ex;futex_wait_[k];[sleep]\":%.0f}}",
				  r ? "," : "", lock_ms * 1e6 * n1, io_ms * 1e6 * n2, 4000 * 1e6 * n3,
				  join_ms * 1e6 * n2);
	}
	e |= pgo_buf_adds(&b, "]}");
	if (e) {
		pgo_buf_release(&b);
		return NULL;
	}
	return pgo_buf_detach(&b);
}

static int lock_verdict(int with_dsos, const char *head_view, struct gate_verdict **v,
			struct pgo_strtab *names, double join_head_ms)
{
	char *base = lock_profile(2000, 4000, 3000, with_dsos);
	char *head = join_head_ms ? lock_profile(2000, 4000, join_head_ms, with_dsos)
				  : lock_profile(4000, 2000, 3000, with_dsos);
	struct gate_profile *b = NULL, *h = NULL;
	struct gate_opts go = GATE_OPTS_INIT;
	int err = -1;

	go.view = gate_view_parse(head_view);
	if (base && head && !gate_profile_parse(base, strlen(base), "base", names, &b) &&
	    !gate_profile_parse(head, strlen(head), "head", names, &h))
		err = gate_compare(b, h, &go, v);
	gate_profile_free(b);
	gate_profile_free(h);
	free(base);
	free(head);
	return err;
}

/*
 * The waiting function is named, not the futex, libc or the thread state below it; the
 * caller whose other child got faster is not "moved" code.
 */
static int test_offcpu_root_is_own_code(void)
{
	static const char *const views[] = { "offcpu", "wall" };
	size_t i, k;

	for (k = 0; k < 2; k++) {
		struct pgo_strtab names = PGO_STRTAB_INIT;
		struct gate_verdict *v = NULL;
		int contended = 0;

		T_ASSERT(lock_verdict(1, views[k], &v, &names, 0) == 0);
		T_ASSERT(v->regression);
		for (i = 0; i < v->nr_results; i++) {
			const struct gate_result *r = &v->results[i];

			if (r->root_cause)
				fprintf(stderr, "# %s: root cause %s (%s)\n", views[k], r->name,
					r->kind == GATE_SELF ? "self" : "inclusive");
			T_ASSERT(!r->moved);
			if (!r->root_cause)
				continue;
			T_ASSERT(!strcmp(r->name, "contended"));
			contended = 1;
		}
		T_ASSERT(contended);
		T_ASSERT_STR(v->results[0].name, "contended");
		gate_verdict_free(v);
		pgo_strtab_release(&names);
	}
	return T_OK;
}

/* Without "dsos" (older files) the kernel and state frames are still known by name. */
static int test_offcpu_old_profile(void)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_verdict *v = NULL;
	size_t i;

	T_ASSERT(lock_verdict(0, "offcpu", &v, &names, 0) == 0);
	T_ASSERT(v->regression);
	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r = &v->results[i];

		if (r->root_cause)
			T_ASSERT(strcmp(r->name, "futex_wait_[k]") && strcmp(r->name, "[sleep]"));
	}
	gate_verdict_free(v);
	pgo_strtab_release(&names);
	return T_OK;
}

/*
 * CPU view: a() has no self time; its child x() gets slower while a's sibling b() gets
 * faster, so main's inclusive time stays put. a() is a caller of the root cause, not
 * code that moved (a function without self time on both sides is not a new symbol).
 */
static int test_no_self_time_is_not_moved(void)
{
	struct gate_opts go = GATE_OPTS_INIT;
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *p[2] = { NULL, NULL };
	struct gate_verdict *v = NULL;
	size_t i;
	int k, r, root = 0;

	for (k = 0; k < 2; k++) {
		struct pgo_buf b = PGO_BUF_INIT;

		T_ASSERT(!pgo_buf_adds(&b, "{\"format\":\"pgo-profile\",\"version\":1,"
				       "\"binary\":{\"path\":\"/x/bench\"},\"event\":\"task-clock\","
				       "\"rate_hz\":999,\"unit\":\"ns\",\"runs\":["));
		for (r = 0; r < 5; r++) {
			double n = 1 + 0.01 * ((r * 3 + k) % 5 - 2);

			T_ASSERT(!pgo_buf_addf(&b, "%s{\"cpu\":{\"main;a;x\":%.0f,\"main;b\":%.0f,"
					       "\"main;c\":%.0f}}", r ? "," : "",
					       (k ? 3000 : 2000) * 1e6 * n, (k ? 2000 : 3000) * 1e6 / n,
					       5000 * 1e6));
		}
		T_ASSERT(!pgo_buf_adds(&b, "]}"));
		T_ASSERT(gate_profile_parse(b.data, b.len, k ? "head" : "base", &names, &p[k]) == 0);
		pgo_buf_release(&b);
	}
	T_ASSERT(gate_compare(p[0], p[1], &go, &v) == 0);
	T_ASSERT(v->regression);
	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r2 = &v->results[i];

		T_ASSERT(!r2->moved);
		if (r2->root_cause) {
			T_ASSERT_STR(r2->name, "x");
			root = 1;
		}
		if (!strcmp(r2->name, "a") && r2->kind == GATE_INCL)
			T_ASSERT(r2->role == GATE_ROLE_VIA);
	}
	T_ASSERT(root);
	gate_verdict_free(v);
	gate_profile_free(p[0]);
	gate_profile_free(p[1]);
	pgo_strtab_release(&names);
	return T_OK;
}

/*
 * A stack the unwinder left without any own frame (main's pthread_join) grows: flagged as
 * not own code, a warning; nothing of the benchmark's changed, so the gate passes.
 */
static int test_offcpu_no_own_frame_warns(void)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_verdict *v = NULL;
	size_t i;
	int seen = 0;

	T_ASSERT(lock_verdict(1, "offcpu", &v, &names, 6000) == 0);
	T_ASSERT(!v->regression);
	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r = &v->results[i];

		if (!strcmp(r->name, "__pthread_clockjoin_ex") && r->kind == GATE_SELF) {
			T_ASSERT(r->flagged && r->outside && r->role == GATE_ROLE_OUTSIDE);
			seen = 1;
		}
	}
	T_ASSERT(seen);
	gate_verdict_free(v);
	pgo_strtab_release(&names);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "offcpu: a stack without own frames is a warning, not a root cause",
	  test_offcpu_no_own_frame_warns },
	{ "a caller without self time is not code motion", test_no_self_time_is_not_moved },
	{ "offcpu/wall: the root cause is the waiting own function, not libc or the kernel",
	  test_offcpu_root_is_own_code },
	{ "offcpu: a profile without dsos never blames kernel or state frames",
	  test_offcpu_old_profile },
	{ "inclusive time counts a recursive function once per sample", test_recursion_counted_once },
	{ "A/A comparisons pass", test_aa_passes },
	{ "+5% of total in one function fails naming exactly it", test_injected_regression_named },
	{ "hottest function 50% faster flags nothing else", test_hottest_faster_flags_nothing },
	{ "clone names are folded", test_clone_names_fold },
	{ "inlining a function is code motion: warn, pass", test_code_motion_warns },
	{ "machine drift: per-function quiet, program check fires", test_drift_is_program_level },
	{ "fewer than 2 runs is an error", test_too_few_runs },
	{ "a baseline from another binary is an error", test_other_binary },
};

T_MAIN(cases)
