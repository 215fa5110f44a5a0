// SPDX-License-Identifier: MIT
/* libFuzzer target: the .gcno reader of `pgo convert --to gcov` (convert/gcno.c). */
#include <stdint.h>
#include <stdlib.h>

#include "convert/gcno.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct convert_gcno g;
	size_t i, k;

	if (convert_gcno_parse("fuzz.gcno", data, size, &g) < 0)
		return 0;
	/* what the route reads of every function: its arcs and lines name its blocks */
	for (i = 0; i < g.nr_fns; i++) {
		for (k = 0; k < g.fns[i].nr_arcs; k++)
			if (g.fns[i].arcs[k].src >= g.fns[i].nr_blocks || g.fns[i].arcs[k].dst >= g.fns[i].nr_blocks)
				abort();
		for (k = 0; k < g.fns[i].nr_lines; k++)
			if (g.fns[i].lines[k].block >= g.fns[i].nr_blocks ||
			    !pgo_strtab_str(&g.strs, g.fns[i].lines[k].file))
				abort();
	}
	convert_gcno_release(&g);
	return 0;
}
