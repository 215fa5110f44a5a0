/* SPDX-License-Identifier: MIT */
/*
 * Comparing line-table rows of two tables (symbolize/linetab.h) by what they say, for the
 * tests that check a partial table against the whole one (convert-linetab, fuzz-linetab).
 * Not a test itself.
 */
#ifndef PGO_TESTS_LINETAB_ROWS_H
#define PGO_TESTS_LINETAB_ROWS_H

#include <stdint.h>
#include <string.h>

#include "symbolize/linetab.h"

/* Do row i of a and row j of b say the same (address, line, discriminator, end, file)?
 * An index past its table, or SIZE_MAX, is no row: equal only to no row. */
static inline int linetab_same_row(const struct symbolize_linetab *a, size_t i, const struct symbolize_linetab *b,
				   size_t j)
{
	const struct symbolize_line *x, *y;
	const char *fx, *fy;

	if (i == SIZE_MAX || j == SIZE_MAX || i >= a->nr_rows || j >= b->nr_rows)
		return (i == SIZE_MAX || i >= a->nr_rows) == (j == SIZE_MAX || j >= b->nr_rows);
	x = symbolize_linetab_row(a, i);
	y = symbolize_linetab_row(b, j);
	fx = symbolize_linetab_file(a, x->file);
	fy = symbolize_linetab_file(b, y->file);
	return symbolize_line_addr(a, x) == symbolize_line_addr(b, y) && x->line == y->line &&
	       x->discr == y->discr && x->end_seq == y->end_seq && (fx == fy || (fx && fy && !strcmp(fx, fy)));
}

#endif
