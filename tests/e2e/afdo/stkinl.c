// SPDX-License-Identifier: MIT
/*
 * A hot call of a small function (mix) and a hot call of a large one (scramble), both in
 * another translation unit when profiled; -DONE_TU includes it, as in the build that uses
 * the profile. The last call of mix runs once: a cold edge. Line numbers of main must not
 * depend on ONE_TU.
 */
#include <stdio.h>
#include <stdlib.h>
#ifdef ONE_TU
#include "stkinl-lib.c"
#else
unsigned mix(unsigned x, unsigned k);
unsigned scramble(unsigned x);
#endif

int main(int argc, char **argv)
{
	unsigned i, n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000, h = 1;

	for (i = 0; i < n; i++)
		h += mix(h + i, i & 3);
	for (i = 0; i < n / 4; i++)
		h ^= scramble(h + i);
	h = mix(h, 7);
	printf("%u\n", h);
	return 0;
}
