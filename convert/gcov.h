/* SPDX-License-Identifier: MIT */
/*
 * The gcov route: a sampled profile turned into the .gcda files of gcc's instrumented PGO
 * (`gcc -fprofile-use`), for the functions of the coverage notes (.gcno) of an ordinary
 * build with -ftest-coverage (docs/gcov.md).
 *
 * Per notes function, its blocks get counts from the samples of the selected binaries:
 *   - every sampled address's inline chain is searched, for each frame naming a notes
 *     function, from the innermost frame outwards for a (file base name, line) of that
 *     function's notes (the innermost frame's line or a call site's), which the
 *     address then counts for;
 *   - a line's count is the MAX over its instructions within one inlined or cloned copy
 *     (the chain above the frame, the ELF symbol, the discriminator), SUMMED over copies
 *     (convert/sampleprof.h counts lines the same way);
 *   - a block's estimate is the largest count of its lines that have code in the binary
 *     (every line-table row of the sampled functions is walked); a line of several blocks
 *     says less about each (a lower weight); a block without such a line has no estimate;
 *   - arc counts by minimum-cost flow (convert/flow.h), so that every block conserves
 *     flow exactly; the counters are the arcs off the spanning tree, in notes order
 *     (convert/gcda.h).
 * Counts are in samples, not executions: gcc uses only their ratios and which are zero.
 * A notes file none of whose functions has code in the binaries gets no .gcda (the
 * notes of another program, or of a library not given with -b).
 */
#ifndef PGO_CONVERT_GCOV_H
#define PGO_CONVERT_GCOV_H

#include <stddef.h>
#include <stdint.h>

struct convert_profile;

struct convert_gcov_options {
	const char *const *notes;      /* .gcno files */
	size_t nr_notes;
	const char *out_dir;           /* NULL: each .gcda next to its .gcno (where -fprofile-use
					  looks by default); else DIR/<mangled path>.gcda, where
					  -fprofile-use=DIR looks */
	const char *prefix_path;       /* with out_dir: removed from the front of the object's
					  absolute path first, as -fprofile-prefix-path does */
};

struct convert_gcov_summary {
	uint64_t files, skipped_files; /* .gcda written; notes without code in the binaries */
	uint64_t functions, sampled_functions;
	uint64_t samples_mapped;       /* samples that counted for some notes line */
	uint64_t max_count;
};

/*
 * The notes files under dir (recursively), sorted, appended to *list (strings and array
 * malloc'd). Returns 0, or -1 after reporting.
 */
int convert_gcov_find_notes(const char *dir, char ***list, size_t *nr, size_t *alloc);

/* The output path of notes file gcno (malloc'd), or NULL after reporting. */
char *convert_gcov_output_path(const struct convert_gcov_options *o, const char *gcno);

/* Write the .gcda files. Returns 0, or -1 after reporting. */
int convert_gcov_write(struct convert_profile *p, const struct convert_gcov_options *o,
		       struct convert_gcov_summary *s);

#endif
