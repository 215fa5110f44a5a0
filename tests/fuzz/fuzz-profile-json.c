// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the profile JSON reader (gate baselines and git notes come from PR
 * authors), and every writer that renders what it accepted.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "convert/flamegraph.h"
#include "convert/folded.h"
#include "convert/profile_json.h"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_flame_opts fo = CONVERT_FLAME_OPTS_INIT;
	struct convert_folded_opts ko = CONVERT_FOLDED_OPTS_INIT;
	int v;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	if (convert_profile_json_parse((const char *)data, size, "fuzz.json", &set))
		return 0;
	convert_profile_json_write(sink, &set);
	for (v = 0; v < CONVERT_VIEW_NR; v++) {
		ko.view = fo.view = (enum convert_view)v;
		convert_folded_write(sink, &set, &ko);
		convert_flamegraph_write(sink, &set, &fo);
		/* the set against itself exercises the differential path */
		fo.base = &set;
		fo.mean_per_run = 1;
		convert_flamegraph_write(sink, &set, &fo);
		fo.base = NULL;
		fo.mean_per_run = 0;
	}
	convert_stackset_release(&set);
	return 0;
}
