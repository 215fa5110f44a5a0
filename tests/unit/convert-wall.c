// SPDX-License-Identifier: MIT
/* The wall-clock view: on-CPU stacks get [running], off-CPU stacks keep or get a state leaf. */
#include <stdint.h>
#include <stdlib.h>

#include "convert/folded.h"
#include "convert/stackset.h"
#include "convert/wall.h"
#include "tests/unit/folded-str.h"
#include "tests/unit/test.h"

static char *folded(const struct convert_stackset *set, long run)
{
	struct convert_folded_opts o = CONVERT_FOLDED_OPTS_INIT;

	o.run = run;
	return folded_str(set, &o);
}

static int test_wall(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT, wall = CONVERT_STACKSET_INIT;
	char *out;

	T_ASSERT(convert_stackset_add_run(&set, 0, 100) == 0);
	T_ASSERT(convert_stackset_add_run(&set, 1, 200) == 1);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "main;compute", 100) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_OFFCPU, "main;wait_for_io;[sleep]", 50) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_OFFCPU, "main;compute;[runnable]", 20) == 0);
	/* no state frame (perf record --off-cpu), and an unresolved DSO frame that looks like one */
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_OFFCPU, "main;[libc.so.6]", 7) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 1, CONVERT_VIEW_CPU, "main;compute", 5) == 0);
	T_ASSERT(convert_stackset_wall(&set, &wall) == 0);
	T_ASSERT(wall.nr_runs == 2 && wall.runs[1].pid == 200);
	T_ASSERT(wall.views == 1u << CONVERT_VIEW_CPU);
	out = folded(&wall, 0);
	T_ASSERT(out);
	T_ASSERT_STR(out, "main;[libc.so.6];[offcpu] 7\n"
			  "main;compute;[runnable] 20\n"
			  "main;compute;[running] 100\n"
			  "main;wait_for_io;[sleep] 50\n");
	free(out);
	out = folded(&wall, 1);
	T_ASSERT(out);
	T_ASSERT_STR(out, "main;compute;[running] 5\n");
	free(out);
	T_ASSERT_EQ_U64(convert_run_total(&wall.runs[0], CONVERT_VIEW_CPU), 177);
	convert_stackset_release(&wall);
	convert_stackset_release(&set);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "wall view: [running] leaves, state leaves kept or added, runs kept apart", test_wall },
};

T_MAIN(cases)
