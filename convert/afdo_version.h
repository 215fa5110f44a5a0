/* SPDX-License-Identifier: MIT */
/*
 * Which gcc an AutoFDO profile is for. Each gcc release reads one format version and looks
 * line offsets up with its own discriminators (docs/convert.md, "gcc versions"):
 *   gcc 12     version 2; discriminators masked off when read;
 *   gcc 13-15  version 2; discriminators part of every offset, matched exactly;
 *   gcc 16     version 3 (a summary section, a file-name table, a timestamp per function)
 *              and hierarchical discriminators: base (bits 0-7), multiplicity (8-14, how
 *              many scalar iterations one execution stands for) and copy id (15-25), of
 *              which its reader asks for the base only (it runs before the passes that
 *              assign the other two).
 * By default the profile is for the gcc whose DW_AT_producer most of the binaries' compile
 * units name.
 */
#ifndef PGO_CONVERT_AFDO_VERSION_H
#define PGO_CONVERT_AFDO_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include "convert/sampleprof.h"

struct convert_profile;

#define CONVERT_GCC_MIN 12
#define CONVERT_GCC_MAX 16
#define CONVERT_GCC_DEFAULT 12         /* for binaries no gcc built (or none says) */

struct convert_afdo_format {
	unsigned gcc;                  /* major version, CONVERT_GCC_MIN..CONVERT_GCC_MAX */
	uint32_t version;              /* the file's version word */
	enum sp_discr discr;           /* what an offset keeps of a DWARF discriminator */
};

/* The format gcc `gcc` (MIN..MAX) reads; keep_discr: exact discriminators on gcc 12 too. */
void convert_afdo_format_of(unsigned gcc, int keep_discr, struct convert_afdo_format *f);

/* gcc's major version in a DW_AT_producer ("GNU C17 14.2.0 -O2 -g"), 0 if gcc is not named. */
unsigned convert_gcc_of_producer(const char *producer);

/*
 * The gcc major version that most compile units of p's selected binaries name, 0 if none
 * does; *units gets how many units name it, *others how many name another gcc.
 */
unsigned convert_afdo_detect_gcc(const struct convert_profile *p, size_t *units, size_t *others);

/*
 * The format of o->gcc, else of the gcc convert_afdo_detect_gcc() finds (warning when it is
 * outside MIN..MAX or when the binaries mix gccs), else of CONVERT_GCC_DEFAULT. Returns 0, or
 * -1 (reported) when o->gcc has no format.
 */
struct convert_afdo_options;
int convert_afdo_choose(const struct convert_profile *p, const struct convert_afdo_options *o,
			struct convert_afdo_format *f);

/* gcc 16's discriminator components (gcc/input.h, DISCR_*) */
static inline uint32_t convert_gcc16_discr_base(uint32_t d)
{
	return d & 0xff;
}

static inline uint64_t convert_gcc16_discr_multiplicity(uint32_t d)
{
	uint32_t m = (d >> 8) & 0x7f;

	return m ? m : 1;
}

/* gcc 16's profile summary (GCOV_TAG_AFDO_SUMMARY): counts over all position records. */
#define CONVERT_AFDO_PERCENTILES 16
struct convert_afdo_v3_summary {
	uint64_t total_count, max_count, max_function_count, num_counts, num_functions;
	struct convert_afdo_percentile {
		uint32_t cutoff;       /* a fraction of total_count, x 1000000 */
		uint64_t min_count;    /* the smallest count among the largest that reach it */
		uint64_t num_counts;   /* how many of those */
	} detailed[CONVERT_AFDO_PERCENTILES];
};

/*
 * Fill s's total, max, number and percentiles from counts[0..n) (sorted in place, largest
 * first; zeros are not counted). The caller fills max_function_count and num_functions.
 */
void convert_afdo_percentiles(uint64_t *counts, size_t n, struct convert_afdo_v3_summary *s);

#endif
