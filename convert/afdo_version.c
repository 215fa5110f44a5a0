// SPDX-License-Identifier: MIT
/*
 * Which gcc an AutoFDO profile is for (convert/afdo_version.h): the format and discriminator
 * encoding of each release, the release the binaries' DW_AT_producer names, and gcc 16's
 * profile summary.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "convert/afdo.h"
#include "convert/afdo_version.h"
#include "convert/internal.h"
#include "symbolize/symtab.h"
#include "lib/report.h"

void convert_afdo_format_of(unsigned gcc, int keep_discr, struct convert_afdo_format *f)
{
	f->gcc = gcc;
	if (gcc >= 16) {
		f->version = 3;
		f->discr = SP_DISCR_GCC16;
	} else {
		f->version = 2;
		f->discr = gcc >= 13 || keep_discr ? SP_DISCR_EXACT : SP_DISCR_DROP;
	}
}

/* "GNU C17 14.2.0 -mtune=generic", "GNU GIMPLE 16.2.0 -O2", "GNU C++17 12.2.0 ..." */
unsigned convert_gcc_of_producer(const char *s)
{
	if (strncmp(s, "GNU ", 4) || !strncmp(s, "GNU AS ", 7))
		return 0;
	/* the first word that starts with a digit and has a dot: the version */
	for (s += 4; *s; ) {
		const char *w = s;

		while (*s && *s != ' ')
			s++;
		if (isdigit((unsigned char)*w) && memchr(w, '.', (size_t)(s - w))) {
			unsigned long v = strtoul(w, NULL, 10);

			return v > 0 && v < 1000 ? (unsigned)v : 0;
		}
		if (*w == '-')
			break; /* options begin: no version before them */
		while (*s == ' ')
			s++;
	}
	return 0;
}

struct census {
	size_t by_major[1000];
};

static int count_producer(const char *producer, void *data)
{
	struct census *c = data;

	c->by_major[convert_gcc_of_producer(producer)]++;
	return 0;
}

/* The gcc most of c's units name, 0 if none. */
static unsigned census_major(const struct census *c)
{
	unsigned i, best = 0;

	for (i = 1; i < 1000; i++)
		if (c->by_major[i] && (!best || c->by_major[i] > c->by_major[best]))
			best = i;
	return best;
}

/*
 * Each binary names the gcc most of its units name, and the binaries vote with their
 * samples: a program's profile stays for its own gcc when libc (another gcc's) is converted
 * with it.
 */
unsigned convert_afdo_detect_gcc(const struct convert_profile *p, size_t *units, size_t *others)
{
	struct census *c = calloc(1, sizeof(*c));
	uint64_t *votes = calloc(1000, sizeof(*votes));
	size_t *named = calloc(1000, sizeof(*named));
	unsigned best = 0, i;
	size_t b, all = 0;

	*units = *others = 0;
	if (!c || !votes || !named)
		goto out; /* a guess less: the default format */
	for (b = 0; b < p->nr_bins; b++) {
		unsigned m;

		if (!p->bins[b].st)
			continue;
		memset(c, 0, sizeof(*c));
		symbolize_symtab_foreach_producer(p->bins[b].st, count_producer, c);
		for (i = 1; i < 1000; i++) {
			named[i] += c->by_major[i];
			all += c->by_major[i];
		}
		m = census_major(c);
		if (m)
			votes[m] += p->bins[b].samples + 1;
	}
	for (i = 1; i < 1000; i++)
		if (votes[i] && (!best || votes[i] > votes[best]))
			best = i;
	if (best) {
		*units = named[best];
		*others = all - named[best];
	}
out:
	free(c);
	free(votes);
	free(named);
	return best;
}

int convert_afdo_choose(const struct convert_profile *p, const struct convert_afdo_options *o,
			struct convert_afdo_format *f)
{
	unsigned gcc = o->gcc, found;
	size_t units, others;

	if (gcc && (gcc < CONVERT_GCC_MIN || gcc > CONVERT_GCC_MAX))
		return pgo_error("no AutoFDO format for gcc %u (gcc %d to %d)", gcc, CONVERT_GCC_MIN,
				 CONVERT_GCC_MAX);
	if (!gcc) {
		found = convert_afdo_detect_gcc(p, &units, &others);
		gcc = found ? found : CONVERT_GCC_DEFAULT;
		if (found && found < CONVERT_GCC_MIN)
			gcc = CONVERT_GCC_MIN;
		else if (found > CONVERT_GCC_MAX)
			gcc = CONVERT_GCC_MAX;
		if (gcc != found && found)
			pgo_warn("the binary was built by gcc %u; writing the AutoFDO profile gcc %u "
				 "reads (--gcc %d..%d to choose)", found, gcc, CONVERT_GCC_MIN,
				 CONVERT_GCC_MAX);
		else if (found && others)
			pgo_warn("%zu compile units were built by gcc %u and %zu by another gcc; "
				 "writing the AutoFDO profile gcc %u reads (--gcc to choose)", units,
				 found, others, gcc);
		pgo_debug(1, "AutoFDO for gcc %u (%s)", gcc,
			  found ? "DW_AT_producer" : "no gcc named in DW_AT_producer: the default");
	}
	convert_afdo_format_of(gcc, o->keep_discriminators, f);
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* the cutoffs of LLVM's ProfileSummaryBuilder, which gcc 16's reader expects 16 of */
static const uint32_t cutoffs[CONVERT_AFDO_PERCENTILES] = {
	10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000,
	800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999,
};

void convert_afdo_percentiles(uint64_t *counts, size_t n, struct convert_afdo_v3_summary *s)
{
	unsigned __int128 sum = 0, total = 0;
	uint64_t min = 0;
	size_t i, k = 0;

	qsort(counts, n, sizeof(*counts), cmp_desc);
	while (n && !counts[n - 1])
		n--;
	for (i = 0; i < n; i++)
		total += counts[i];
	s->total_count = (uint64_t)total;
	s->max_count = n ? counts[0] : 0;
	s->num_counts = n;
	for (i = 0; i < CONVERT_AFDO_PERCENTILES; i++) {
		unsigned __int128 want = total * cutoffs[i] / 1000000;

		while (sum < want && k < n) {
			min = counts[k];
			sum += counts[k++];
		}
		s->detailed[i].cutoff = cutoffs[i];
		s->detailed[i].min_count = min;
		s->detailed[i].num_counts = k;
	}
}
