// SPDX-License-Identifier: MIT
/* Folded-stack writer (flamegraph.pl / speedscope input). */
#include <inttypes.h>
#include <stdlib.h>

#include "convert/folded.h"
#include "lib/report.h"

int convert_folded_write(FILE *fp, const struct convert_stackset *set,
			 const struct convert_folded_opts *opts)
{
	struct convert_stack_weight *sw;
	size_t i, nr;

	if (convert_stackset_collect(set, opts->view, opts->run, &sw, &nr))
		return -1;
	if (opts->header)
		fprintf(fp, "# pgo folded stacks: view=%s unit=ns runs=%s\n",
			convert_view_name(opts->view), opts->run < 0 ? "all" : "one");
	for (i = 0; i < nr; i++)
		fprintf(fp, "%s %" PRIu64 "\n", convert_stackset_stack(set, sw[i].stack),
			sw[i].weight);
	free(sw);
	/* a write error is reported by the caller, who knows the file's name */
	return ferror(fp) ? -1 : 0;
}
