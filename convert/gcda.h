/* SPDX-License-Identifier: MIT */
/*
 * gcc's profile data (.gcda) as `gcc -fprofile-use` reads it (gcc/coverage.cc,
 * read_counts_file), written for the functions of one notes file (convert/gcno.h):
 * magic "gcda", the notes' version and stamp, an object checksum (gcc reads and ignores
 * it; gcov-dump prints it), OBJECT_SUMMARY (runs, sum_max), then per function FUNCTION
 * (ident, lineno checksum, cfg checksum, from the notes) and ARC_COUNTS: one 64-bit
 * counter per arc without the on-tree flag, in the notes' order. No value-profile
 * counters: gcc finds none and uses no value profile for the function, silently
 * (docs/gcov.md, "Value profiles").
 */
#ifndef PGO_CONVERT_GCDA_H
#define PGO_CONVERT_GCDA_H

#include <stdint.h>

#include "convert/gcno.h"
#include "lib/buf.h"

/*
 * The .gcda bytes of notes g into out. counts[i] holds g->fns[i].nr_counted counters
 * (NULL: zeros). sum_max is the summary's largest counter of the program. Returns 0 or
 * -1 (out of memory, reported).
 */
int convert_gcda_encode(const struct convert_gcno *g, uint64_t *const *counts, uint64_t sum_max,
			struct pgo_buf *out);
/* The same, written to path through a temporary file and a rename. */
int convert_gcda_write(const char *path, const struct convert_gcno *g, uint64_t *const *counts,
		       uint64_t sum_max);

#endif
