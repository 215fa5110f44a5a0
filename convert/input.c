// SPDX-License-Identifier: MIT
/* convert's inputs recognised by their first bytes, and loaded into a stack set (convert/input.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "convert/input.h"
#include "convert/profile_json.h"
#include "lib/report.h"

enum convert_input convert_input_kind(const char *path)
{
	FILE *fp;
	int ch;

	if (!strcmp(path, "-"))
		return CONVERT_INPUT_PROFILE_JSON;
	fp = fopen(path, "rb");
	if (!fp)
		return CONVERT_INPUT_PERF_DATA;
	do
		ch = getc(fp);
	while (ch != EOF && isspace(ch));
	fclose(fp);
	return ch == '{' ? CONVERT_INPUT_PROFILE_JSON : CONVERT_INPUT_PERF_DATA;
}

static int load_json(const struct convert_options *co, struct convert_stackset *set)
{
	size_t i;

	for (i = 0; i < co->nr_inputs; i++) {
		struct convert_stackset one = CONVERT_STACKSET_INIT;
		int err;

		if (convert_profile_json_load(co->inputs[i], &one))
			return -1;
		err = convert_stackset_append(set, &one);
		convert_stackset_release(&one);
		if (err)
			return -1;
	}
	return 0;
}

static int load_perf_data(struct convert_options *co, struct convert_stackset *set)
{
	struct convert_profile *p = NULL;
	const struct convert_info *in;
	int err;

	co->want_stacks = 1;
	if (convert_profile_load(co, &p) < 0)
		return -1;
	in = convert_profile_info(p);
	if (in->lost)
		pgo_warn("%llu samples were lost during the recording; weights are lower than "
			 "the truth", (unsigned long long)in->lost);
	if (in->samples && !in->has_callchain)
		pgo_warn("the recording has no call stacks (perf record -g); stacks are "
			 "the sampled function only");
	err = convert_stackset_from_profile(p, set);
	convert_profile_free(p);
	return err ? -1 : 0;
}

int convert_input_load_stacks(struct convert_options *co, enum convert_input kind,
			      struct convert_stackset *set)
{
	return kind == CONVERT_INPUT_PROFILE_JSON ? load_json(co, set) : load_perf_data(co, set);
}
