/* SPDX-License-Identifier: MIT */
/*
 * AutoFDO profiles for gcc 12 to 16 (-fauto-profile=FILE): the version-2 byte layout of
 * autofdo-gcc12-format.md (gcc 12-15) or version 3 (gcc 16; convert/afdo_version.h), written
 * from the model of convert/sampleprof.h, read back and checked before it is renamed into
 * place. And a reader that prints any .afdo (version 3, 2, or the word-string layout of
 * gcc <= 11 / autofdo 0.19) as text.
 */
#ifndef PGO_CONVERT_AFDO_H
#define PGO_CONVERT_AFDO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct convert_profile;

struct convert_afdo_options {
	unsigned gcc;                  /* the gcc major version to write for (12..16); 0: the one
					  the binaries' DW_AT_producer names (convert/afdo_version.h) */
	int keep_discriminators;       /* exact discriminators with gcc 12 (which drops them) */
	uint64_t min_count;            /* sampled lines at least this; unsampled ones too where
					  the function's samples say most of them ran */
	unsigned offline;              /* SP_OFFLINE_NESTED, SP_OFFLINE_INLINED or 0
					  (sampleprof.h) */
};

/* gcc 12 counts a line as hot from 2 (autofdo-gcc12-format.md §5) */
#define CONVERT_AFDO_MIN_COUNT 2

/* What a written (or read) file holds. */
struct convert_afdo_summary {
	uint32_t version;
	unsigned gcc;                  /* written only: the gcc major version it is for */
	uint64_t strings;
	uint64_t functions;            /* top-level */
	uint64_t instances;            /* nested inline instances */
	uint64_t positions;            /* pos records, all levels */
	uint64_t targets;
	uint64_t sum_counts;           /* over pos records */
	uint64_t sum_heads;            /* over top-level head counts */
	uint64_t max_count;
	/* written only: pos records sampled (count > 0), once and twice, before min_count */
	uint64_t sampled;
	uint64_t sampled_once;
	uint64_t sampled_twice;
};

/*
 * Sampled lines that ran but have no sample, estimated from those sampled once (f1)
 * and twice (f2): Chao's bias-corrected lower bound f1(f1-1) / 2(f2+1). gcc 12
 * optimises lines counted 0 or 1 for size, so a large estimate means a sparse profile.
 */
double convert_afdo_unseen(const struct convert_afdo_summary *s);

/*
 * Build the AutoFDO profile of p's binaries and write it to path ("-" = stdout).
 * The bytes are parsed back and compared with the model before the file appears.
 * Returns 0 (summary filled) or -1 after reporting; no file is left on failure.
 */
int convert_afdo_write(struct convert_profile *p, const struct convert_afdo_options *o,
		       const char *path, struct convert_afdo_summary *sum);

/*
 * Parse an .afdo image. out != NULL: print it as text. name is used in messages.
 * Returns 0 (summary filled) or -1 after reporting what is malformed and where.
 */
int convert_afdo_parse(const uint8_t *data, size_t len, const char *name, FILE *out,
		       struct convert_afdo_summary *sum);
/* convert_afdo_parse() of a file, printed to out. */
int convert_afdo_dump(const char *path, FILE *out);

#endif
