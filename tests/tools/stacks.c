// SPDX-License-Identifier: MIT
/*
 * Test tool: print the on-CPU call stacks a perf.data file loads to, through the same
 * loader the convert writers use (convert_stacks_foreach), one folded line per stack:
 * "frame;frame;...;leaf WEIGHT_NS". For e2e tests that need stacks before (or besides)
 * `pgo convert --to folded`. Usage: stacks [-v] FILE. Exit 2 on errors.
 */
#include <stdio.h>
#include <string.h>

#include "convert/stacks.h"
#include "lib/report.h"

static int print_stack(const struct convert_stack *st, void *data)
{
	size_t i;

	(void)data;
	if (st->view != CONVERT_STACK_CPU)
		return 0;
	for (i = 0; i < st->nr_frames; i++)
		printf("%s%s", i ? ";" : "", st->frames[i].name);
	printf(" %llu\n", (unsigned long long)st->weight_ns);
	return 0;
}

int main(int argc, char **argv)
{
	struct convert_options o = { 0 };
	struct convert_profile *p;
	const char *in[1];
	int verbose = argc > 2 && !strncmp(argv[1], "-v", 2) ? (int)strlen(argv[1]) - 1 : 0;

	pgo_report_set_prog("stacks");
	if (argc != 2 + !!verbose) {
		fprintf(stderr, "usage: stacks [-v] FILE\n");
		return 2;
	}
	pgo_report_set_verbosity(verbose);
	in[0] = argv[1 + !!verbose];
	o.inputs = in;
	o.nr_inputs = 1;
	o.want_stacks = 1;
	if (convert_profile_load(&o, &p))
		return 2;
	if (convert_stacks_foreach(p, print_stack, NULL)) {
		convert_profile_free(p);
		return 2;
	}
	convert_profile_free(p);
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}
