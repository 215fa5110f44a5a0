/* SPDX-License-Identifier: MIT */
/*
 * The one entry for convert's inputs: the command line's list expanded, what a file is by
 * its first bytes, and the stack set of a list of inputs of one kind. A profile JSON
 * (docs/profile-json.md) starts with '{' after blanks; a pprof file with gzip's magic or a
 * protobuf field tag (convert/pprof_read.h); anything else is taken for perf.data, whose
 * reader checks its magic ("PERFILE2") and reports what is wrong with it.
 */
#ifndef PGO_CONVERT_INPUT_H
#define PGO_CONVERT_INPUT_H

#include <stddef.h>

#include "convert/profile.h"
#include "convert/stackset.h"

enum convert_input {
	CONVERT_INPUT_PERF_DATA,
	CONVERT_INPUT_PROFILE_JSON,
	CONVERT_INPUT_PPROF,           /* loaded as perf.data is (the loader translates it) */
};

/*
 * The kind of input path ("-": stdin, read as profile JSON). A file that cannot be opened
 * is CONVERT_INPUT_PERF_DATA: the perf.data reader reports the error.
 */
enum convert_input convert_input_kind(const char *path);

/*
 * Load the inputs of co, all of kind `kind`, into set: profile JSON files merged run after
 * run, or perf.data files through the stack loader (co->want_stacks is set), with a
 * warning where samples were lost or the recording has no call stacks. Returns 0, or -1
 * after reporting; set is the caller's, to release either way.
 */
int convert_input_load_stacks(struct convert_options *co, enum convert_input kind,
			      struct convert_stackset *set);

/*
 * The input list of a conversion, expanded: a quoted glob ('fleet/host*.pb.gz', when no
 * file has that literal name) becomes its matches, in sorted order; a directory of pprof
 * files (not a perf record --threads directory, which holds a "data" file and is read
 * as one recording) becomes its pprof files, sorted. Other names pass through as given.
 *
 * Ownership: *out is a new array of new strings; free it with convert_input_list_free().
 * Returns 0, or -1 after reporting (a glob or directory that matches nothing is an
 * error naming it).
 */
int convert_input_expand(const char *const *in, size_t nr_in, char ***out, size_t *nr_out);
void convert_input_list_free(char **list, size_t nr);

#endif
