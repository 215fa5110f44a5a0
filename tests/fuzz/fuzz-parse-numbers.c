// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: strict number parsing of options (lib/parse.h). Besides memory
 * errors it checks the contract: an accepted u64 prints back to a number that parses
 * to the same value, an accepted double is finite, a range is respected.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), back[32];
	uint64_t u, u2;
	double d;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	if (pgo_parse_u64(s, &u) == 0) {
		snprintf(back, sizeof(back), "%llu", (unsigned long long)u);
		if (pgo_parse_u64(back, &u2) || u2 != u)
			abort();
	}
	if (pgo_parse_u64_range(s, 10, 1000, &u) == 0 && (u < 10 || u > 1000))
		abort();
	if (pgo_parse_double(s, 1, &d) == 0 && !isfinite(d))
		abort();
	if (pgo_parse_double(s, 0, &d) == 0 && !isfinite(d))
		abort();
	pgo_parse_duration_ns(s, 1000, &u);
	free(s);
	return 0;
}
