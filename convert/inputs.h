/* SPDX-License-Identifier: MIT */
/*
 * The input list of a conversion, expanded: a quoted glob ('fleet/host*.pb.gz', when no
 * file has that literal name) becomes its matches, in sorted order; a directory of pprof
 * files (not a perf record --threads directory, which holds a "data" file and is read
 * as one recording) becomes its pprof files, sorted. Other names pass through as given.
 *
 * Ownership: *out is a new array of new strings; free it with convert_inputs_free().
 * Returns 0, or -1 after reporting (a glob or directory that matches nothing is an
 * error naming it).
 */
#ifndef PGO_CONVERT_INPUTS_H
#define PGO_CONVERT_INPUTS_H

#include <stddef.h>

int convert_inputs_expand(const char *const *in, size_t nr_in, char ***out, size_t *nr_out);
void convert_inputs_free(char **list, size_t nr);

#endif
