/* SPDX-License-Identifier: MIT */
/*
 * The folded text convert_folded_write() makes of a stack set, as a string (new: free() it;
 * NULL on failure), for the unit tests that compare it with what they expect.
 * Not a test itself: only the .c files under tests/unit are.
 */
#ifndef PGO_TESTS_FOLDED_STR_H
#define PGO_TESTS_FOLDED_STR_H

#include <stdio.h>
#include <stdlib.h>

#include "convert/folded.h"

static inline char *folded_str(const struct convert_stackset *set,
			       const struct convert_folded_opts *o)
{
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	if (!fp)
		return NULL;
	if (convert_folded_write(fp, set, o)) {
		fclose(fp);
		free(s);
		return NULL;
	}
	fclose(fp);
	return s;
}

#endif
