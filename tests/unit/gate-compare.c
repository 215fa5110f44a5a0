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
	struct synth_opts o = { 7, s, 200, 5, 999, 10, 1, 0, 0, 0, NULL, 0 };
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
	struct synth_opts o = { 7, 1, 50, 1, 999, 1, 1, 0, 0, 0, NULL, 0 };
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
	struct synth_opts o = { 7, 1, 50, 3, 999, 1, 1, 0, 0, 0, "/x/bench", 0 };
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

static const struct t_case cases[] = {
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
