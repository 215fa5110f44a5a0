/* SPDX-License-Identifier: MIT */
/*
 * The one entry for convert's inputs: what a file is, by its first bytes, and the stack
 * set of a list of inputs of one kind. A profile JSON (docs/profile-json.md) starts with
 * '{' after blanks; anything else is taken for perf.data, whose reader checks its magic
 * ("PERFILE2") and reports what is wrong with it.
 */
#ifndef PGO_CONVERT_INPUT_H
#define PGO_CONVERT_INPUT_H

#include "convert/profile.h"
#include "convert/stackset.h"

enum convert_input {
	CONVERT_INPUT_PERF_DATA,
	CONVERT_INPUT_PROFILE_JSON,
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

#endif
