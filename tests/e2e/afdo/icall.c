// SPDX-License-Identifier: MIT
/*
 * Indirect calls with one dominant target: in the hot loop ops[] nearly always holds hash
 * (small), once in 1024 iterations rehash (small, cold); the second loop calls scramble
 * (large, from stkinl-lib.c) through a pointer. The targets are in other translation units
 * when profiled; -DONE_TU includes them, as in the build that uses the profile. Line numbers
 * of main must not depend on ONE_TU.
 */
#include <stdio.h>
#include <stdlib.h>
#ifdef ONE_TU
#include "icall-lib.c"
#include "stkinl-lib.c"
#else
unsigned hash(unsigned x);
unsigned rehash(unsigned x);
unsigned scramble(unsigned x);
#endif

unsigned (*ops[])(unsigned) = { hash, rehash, scramble };

int main(int argc, char **argv)
{
	unsigned i, n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000, h = 1;

	for (i = 0; i < n; i++)
		h += ops[(i & 1023) == 1023](h + i);
	for (i = 0; i < n / 4; i++)
		h ^= ops[2](h + i);
	printf("%u\n", h);
	return 0;
}
