// SPDX-License-Identifier: MIT
/* The profile JSON reader: strict validation, clone folding, self/inclusive inputs. */
#include <stdio.h>
#include <stdlib.h>

#include "gate/profile.h"
#include "test.h"

#define HDR "{\"format\":\"pgo-profile\",\"version\":1,\"binary\":{\"path\":\"/b/bench\"}," \
	    "\"event\":\"task-clock\",\"rate_hz\":1000,\"unit\":\"ns\","

static int parse(const char *json, struct pgo_strtab *names, struct gate_profile **p)
{
	return gate_profile_parse(json, strlen(json), "t.json", names, p);
}

static int rejects(const char *json)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *p = NULL;
	int r = parse(json, &names, &p);

	gate_profile_free(p);
	pgo_strtab_release(&names);
	return r < 0 && !p;
}

static int test_fold_clone(void)
{
	static const struct { const char *in; size_t len; } cases[] = {
		{ "foo.isra.0", 3 }, { "foo.constprop.12", 3 }, { "foo.part.3", 3 },
		{ "foo.cold", 3 }, { "foo.cold.1", 3 }, { "foo.llvm.123456789", 3 },
		{ "foo.isra.0.constprop.1", 3 }, { "foo.part.0.cold", 3 }, { "foo.lto_priv.0", 3 },
		{ "foo", 3 }, { "foo.1", 5 }, { "foo.isra", 8 }, { ".cold", 5 }, { "a.b.c", 5 },
		{ "x.isra.", 7 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t got = gate_fold_clone_len(cases[i].in, strlen(cases[i].in));

		if (got != cases[i].len)
			fprintf(stderr, "# %s -> %zu\n", cases[i].in, got);
		T_ASSERT(got == cases[i].len);
	}
	return T_OK;
}

static int test_valid(void)
{
	static const char json[] = HDR "\"views\":[\"cpu\",\"offcpu\"],\"host\":\"x\",\"runs\":["
		"{\"run\":0,\"cpu_ns\":4000,\"samples\":4,\"lost\":0,"
		"\"cpu\":{\"main;f;f;g\":2000,\"main;f.isra.0\":1000,\"main;f\":1000},"
		"\"offcpu\":{\"main;w;[sleep]\":5000000}},"
		"{\"run\":1,\"cpu_ns\":2000,\"samples\":2,\"cpu\":{\"main;g.cold\":2000}}]}";
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *p = NULL;
	const struct gate_view *v;
	long f;
	size_t s;

	T_ASSERT(parse(json, &names, &p) == 0);
	T_ASSERT_EQ_U64(p->nr_runs, 2);
	v = &p->views[GATE_VIEW_CPU];
	/* "main;f.isra.0" and "main;f" merge into one stack after folding. */
	T_ASSERT_EQ_U64(v->nr_stacks, 3);
	f = pgo_strtab_find(&names, "f");
	T_ASSERT(f >= 0);
	T_ASSERT(pgo_strtab_find(&names, "f.isra.0") < 0);
	for (s = 0; s < v->nr_stacks; s++) {
		const struct gate_stack *st = &v->stacks[s];

		if (st->depth == 2 && st->frames[1] == (uint32_t)f) {
			/* 2000 ns of a 4000 ns run with 4 samples = 2 samples */
			T_ASSERT_NEAR(v->counts[s * 2 + 0], 2.0, 1e-12);
			T_ASSERT_NEAR(v->counts[s * 2 + 1], 0.0, 1e-12);
		}
	}
	T_ASSERT(p->views[GATE_VIEW_OFFCPU].present);
	T_ASSERT_EQ_U64(p->views[GATE_VIEW_OFFCPU].nr_stacks, 1);
	/* 5 ms off-CPU at 1000 Hz = 5 pseudo-samples */
	T_ASSERT_NEAR(p->views[GATE_VIEW_OFFCPU].counts[0], 5.0, 1e-9);
	T_ASSERT(pgo_strtab_find(&names, "[sleep]") >= 0);
	T_ASSERT_EQ_U64(p->views[GATE_VIEW_WALL].nr_stacks, 4);
	gate_profile_free(p);
	pgo_strtab_release(&names);
	return T_OK;
}

static int test_rejects_tampered(void)
{
	T_ASSERT(rejects(""));
	T_ASSERT(rejects("[]"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"a\":1}}"));
	T_ASSERT(rejects("{\"format\":\"pgo-verdict\",\"version\":1}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\",\"gpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"a\":1}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"a\":\"1\"}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"a\":-1}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"a\":1.5}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"a;;b\":1}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"\":1}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"a\":1,\"a\":2}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":1,\"samples\":1}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[{\"cpu_ns\":-1,\"samples\":1,\"cpu\":{}}]}"));
	T_ASSERT(rejects(HDR "\"views\":[\"cpu\"],\"runs\":[3]}"));
	T_ASSERT(rejects("{\"format\":\"pgo-profile\",\"version\":2,\"binary\":{\"path\":\"b\"},"
			 "\"event\":\"e\",\"rate_hz\":1,\"unit\":\"ns\",\"views\":[\"cpu\"],\"runs\":[]}"));
	T_ASSERT(rejects("{\"format\":\"pgo-profile\",\"version\":1,\"binary\":{\"path\":\"b\"},"
			 "\"event\":\"e\",\"rate_hz\":1,\"unit\":\"samples\",\"views\":[\"cpu\"],\"runs\":[]}"));
	T_ASSERT(rejects("{\"format\":\"pgo-profile\",\"version\":1,\"binary\":\"b\","
			 "\"event\":\"e\",\"rate_hz\":1,\"unit\":\"ns\",\"views\":[\"cpu\"],\"runs\":[]}"));
	return T_OK;
}

static int test_merge(void)
{
	static const char a[] = HDR "\"views\":[\"cpu\"],\"runs\":["
		"{\"cpu_ns\":2,\"samples\":2,\"cpu\":{\"main;f\":2}}]}";
	static const char b[] = HDR "\"views\":[\"cpu\"],\"runs\":["
		"{\"cpu_ns\":3,\"samples\":3,\"cpu\":{\"main;g\":1,\"main;f\":2}},"
		"{\"cpu_ns\":1,\"samples\":1,\"cpu\":{\"main;g\":1}}]}";
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *pa = NULL, *pb = NULL, *m = NULL;
	const struct gate_view *v;

	T_ASSERT(parse(a, &names, &pa) == 0 && parse(b, &names, &pb) == 0);
	T_ASSERT(gate_profile_merge(pa, pb, &m) == 0);
	T_ASSERT_EQ_U64(m->nr_runs, 3);
	v = &m->views[GATE_VIEW_CPU];
	T_ASSERT_EQ_U64(v->nr_stacks, 2);
	T_ASSERT_NEAR(v->counts[0], 2, 1e-12);  /* main;f run 0 */
	T_ASSERT_NEAR(v->counts[1], 2, 1e-12);  /* main;f run 1 */
	T_ASSERT_NEAR(v->counts[2], 0, 1e-12);
	T_ASSERT_NEAR(v->counts[3 + 1], 1, 1e-12); /* main;g run 1 */
	T_ASSERT_NEAR(v->counts[3 + 2], 1, 1e-12);
	gate_profile_free(pa);
	gate_profile_free(pb);
	gate_profile_free(m);
	pgo_strtab_release(&names);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "clone suffixes fold to the base name", test_fold_clone },
	{ "a valid profile: runs, folding, sample equivalents, views", test_valid },
	{ "truncated, tampered and foreign inputs are rejected", test_rejects_tampered },
	{ "merging the runs of two profiles", test_merge },
};

T_MAIN(cases)
