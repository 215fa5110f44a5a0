// SPDX-License-Identifier: MIT
/* Unit tests for the stack set model and the folded-stack writer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "convert/folded.h"
#include "convert/stackset.h"
#include "tests/unit/folded-str.h"
#include "tests/unit/test.h"

static char *folded(const struct convert_stackset *set, enum convert_view view, long run, int header)
{
	struct convert_folded_opts o = CONVERT_FOLDED_OPTS_INIT;

	o.view = view;
	o.run = run;
	o.header = header;
	return folded_str(set, &o);
}

static int test_intern_and_sum(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	const char *a[] = { "main", "work", "leaf" }, *b[] = { "main", "other" };
	struct convert_stack_weight *sw;
	size_t nr;
	long r0, r1;

	r0 = convert_stackset_add_run(&set, 0, 100);
	r1 = convert_stackset_add_run(&set, 1, 101);
	T_ASSERT(r0 == 0 && r1 == 1);
	T_ASSERT(convert_stackset_add(&set, 0, CONVERT_VIEW_CPU, a, 3, 10) == 0);
	T_ASSERT(convert_stackset_add(&set, 0, CONVERT_VIEW_CPU, a, 3, 5) == 0);
	T_ASSERT(convert_stackset_add(&set, 1, CONVERT_VIEW_CPU, a, 3, 7) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 1, CONVERT_VIEW_CPU, "main;other", 3) == 0);
	T_ASSERT(convert_stackset_add(&set, 1, CONVERT_VIEW_OFFCPU, b, 2, 1000) == 0);
	/* one id per distinct stack, shared by runs and views */
	T_ASSERT_EQ_U64(set.stacks.nr, 2);
	T_ASSERT(set.views == 3);
	T_ASSERT_EQ_U64(convert_run_total(&set.runs[0], CONVERT_VIEW_CPU), 15);
	T_ASSERT_EQ_U64(convert_run_total(&set.runs[1], CONVERT_VIEW_CPU), 10);
	T_ASSERT(convert_stackset_collect(&set, CONVERT_VIEW_CPU, -1, &sw, &nr) == 0);
	T_ASSERT(nr == 2);
	T_ASSERT_STR(convert_stackset_stack(&set, sw[0].stack), "main;other");
	T_ASSERT_EQ_U64(sw[0].weight, 3);
	T_ASSERT_STR(convert_stackset_stack(&set, sw[1].stack), "main;work;leaf");
	T_ASSERT_EQ_U64(sw[1].weight, 22);
	free(sw);
	T_ASSERT(convert_stackset_collect(&set, CONVERT_VIEW_CPU, 0, &sw, &nr) == 0);
	T_ASSERT(nr == 1 && sw[0].weight == 15);
	free(sw);
	convert_stackset_release(&set);
	T_ASSERT(set.nr_runs == 0 && set.runs == NULL && set.stacks.nr == 0);
	return T_OK;
}

static int test_sanitize_names(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	const char *f[] = { "main", "a;b", "", "bad\xff\xc3x", "ok\xc3\xa9" };

	T_ASSERT(convert_stackset_add_run(&set, 0, -1) == 0);
	T_ASSERT(convert_stackset_add(&set, 0, CONVERT_VIEW_CPU, f, 5, 1) == 0);
	T_ASSERT_STR(convert_stackset_stack(&set, 0), "main;a:b;[unknown];bad??x;ok\xc3\xa9");
	T_ASSERT(convert_stackset_add(&set, 0, CONVERT_VIEW_CPU, f, 0, 1) == -1);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "a;;b", 1) == -1);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, ";a", 1) == -1);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "a;", 1) == -1);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "", 1) == -1);
	convert_stackset_release(&set);
	return T_OK;
}

static int test_overflow_is_an_error(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_stack_weight *sw;
	size_t nr;

	T_ASSERT(convert_stackset_add_run(&set, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_run(&set, 1, -1) == 1);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "a", UINT64_MAX) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "a", 1) == -1);
	T_ASSERT(convert_stackset_add_folded(&set, 1, CONVERT_VIEW_CPU, "a", 1) == 0);
	T_ASSERT(convert_stackset_collect(&set, CONVERT_VIEW_CPU, -1, &sw, &nr) == -1);
	T_ASSERT(convert_stackset_collect(&set, CONVERT_VIEW_CPU, 1, &sw, &nr) == 0 && nr == 1);
	free(sw);
	convert_stackset_release(&set);
	return T_OK;
}

static int test_folded_output(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	char *s;

	T_ASSERT(convert_stackset_add_run(&set, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_run(&set, 1, -1) == 1);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "main;z", 3) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "main;a;b", 2) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 1, CONVERT_VIEW_CPU, "main;z", 4) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 1, CONVERT_VIEW_OFFCPU, "main;w;[sleep]", 9) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 1, CONVERT_VIEW_CPU, "main;zero", 0) == 0);
	s = folded(&set, CONVERT_VIEW_CPU, -1, 0);
	T_ASSERT_STR(s, "main;a;b 2\nmain;z 7\n");
	free(s);
	s = folded(&set, CONVERT_VIEW_CPU, 1, 1);
	T_ASSERT_STR(s, "# pgo folded stacks: view=cpu unit=ns runs=one\nmain;z 4\n");
	free(s);
	s = folded(&set, CONVERT_VIEW_OFFCPU, -1, 0);
	T_ASSERT_STR(s, "main;w;[sleep] 9\n");
	free(s);
	convert_stackset_release(&set);
	return T_OK;
}

static int test_views(void)
{
	enum convert_view v;

	T_ASSERT(convert_view_parse("offcpu", &v) == 0 && v == CONVERT_VIEW_OFFCPU);
	T_ASSERT(convert_view_parse("cpu", &v) == 0 && v == CONVERT_VIEW_CPU);
	T_ASSERT(convert_view_parse("wall", &v) == -1);
	T_ASSERT_STR(convert_view_name(CONVERT_VIEW_OFFCPU), "offcpu");
	return T_OK;
}

static int test_append(void)
{
	struct convert_stackset a = CONVERT_STACKSET_INIT, b = CONVERT_STACKSET_INIT;
	char *s;

	a.event = strdup("task-clock");
	b.event = strdup("cycles");
	b.command = strdup("./bench");
	b.rate_hz = 99;
	T_ASSERT(convert_stackset_add_run(&a, 0, 10) == 0);
	T_ASSERT(convert_stackset_add_folded(&a, 0, CONVERT_VIEW_CPU, "main;x", 5) == 0);
	T_ASSERT(convert_stackset_add_run(&b, 0, 20) == 0);
	T_ASSERT(convert_stackset_add_run(&b, 7, 21) == 1);
	T_ASSERT(convert_stackset_add_folded(&b, 0, CONVERT_VIEW_CPU, "main;y", 3) == 0);
	T_ASSERT(convert_stackset_add_folded(&b, 1, CONVERT_VIEW_CPU, "main;x", 2) == 0);
	T_ASSERT(convert_stackset_add_folded(&b, 1, CONVERT_VIEW_OFFCPU, "main;w", 4) == 0);
	b.runs[1].samples = 77;
	T_ASSERT(convert_stackset_append(&a, &b) == 0);
	/* runs renumbered after a's, metadata kept where a has it, filled where not */
	T_ASSERT(a.nr_runs == 3 && a.runs[1].run == 1 && a.runs[2].run == 2);
	T_ASSERT(a.runs[2].pid == 21 && a.runs[2].samples == 77);
	T_ASSERT_STR(a.event, "task-clock");
	T_ASSERT_STR(a.command, "./bench");
	T_ASSERT(a.rate_hz == 99 && a.views == 3);
	s = folded(&a, CONVERT_VIEW_CPU, -1, 0);
	T_ASSERT_STR(s, "main;x 7\nmain;y 3\n");
	free(s);
	s = folded(&a, CONVERT_VIEW_OFFCPU, 2, 0);
	T_ASSERT_STR(s, "main;w 4\n");
	free(s);
	convert_stackset_release(&a);
	convert_stackset_release(&b);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "append merges runs and metadata", test_append },
	{ "stacks are interned and summed per run and view", test_intern_and_sum },
	{ "frame names are sanitized", test_sanitize_names },
	{ "weight overflow is an error", test_overflow_is_an_error },
	{ "folded output is sorted, per view and run", test_folded_output },
	{ "view names", test_views },
};
T_MAIN(cases)
