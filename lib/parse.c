// SPDX-License-Identifier: MIT
/* Strict number parsing: whole string, in range, no silent truncation. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parse.h"

int pgo_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		return -1;
	*out = v;
	return 0;
}

int pgo_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (pgo_parse_u64(s, &v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int pgo_parse_double(const char *s, int allow_percent, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -1;
	if (allow_percent && *end == '%') {
		v /= 100.0;
		end++;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

int pgo_parse_duration_ns(const char *s, uint64_t default_unit_ns, uint64_t *out)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	char *end;
	double v;
	uint64_t unit = default_unit_ns;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		unit = units[i].ns;
	}
	v *= (double)unit;
	if (v > 1.8e19)
		return -1;
	*out = (uint64_t)v;
	return 0;
}
