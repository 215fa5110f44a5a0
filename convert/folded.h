/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks (the stackcollapse format that flamegraph.pl, speedscope and inferno
 * read): one line per unique stack, frames root -> leaf joined by ';', a space, and the
 * weight in ns. Lines are sorted by stack (byte order), so equal inputs give equal files.
 */
#ifndef PGO_CONVERT_FOLDED_H
#define PGO_CONVERT_FOLDED_H

#include <stdio.h>

#include "convert/stackset.h"

struct convert_folded_opts {
	enum convert_view view;
	long run;   /* run index, or -1 for the sum over all runs */
	int header; /* start with a "# ..." comment naming the unit and view (flamegraph.pl
		     * skips it with a warning; off by default for strict importers) */
};
#define CONVERT_FOLDED_OPTS_INIT { CONVERT_VIEW_CPU, -1, 0 }

/*
 * Write the folded stacks to fp. Returns 0, or -1: after reporting (allocation
 * failure), or on a write error with ferror(fp) set and nothing reported, so the
 * caller names the file (pgo_atomic_commit() does).
 */
int convert_folded_write(FILE *fp, const struct convert_stackset *set,
			 const struct convert_folded_opts *opts);

#endif
