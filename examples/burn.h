/* SPDX-License-Identifier: MIT */
/*
 * The examples' CPU burner: xorshift rounds until a CPU clock (the process's or the
 * thread's) shows `budget` ns spent, forever if budget is 0. Always inlined, so samples
 * land in the function that calls it, whose name the tests look for.
 */
#ifndef PGO_EXAMPLES_BURN_H
#define PGO_EXAMPLES_BURN_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline __attribute__((always_inline)) uint64_t burn_clock(clockid_t clk, uint64_t budget)
{
	uint64_t x = 88172645463325252ULL, start = clock_ns(clk);
	int i;

	while (!budget || clock_ns(clk) - start < budget)
		for (i = 0; i < 20000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			__asm__ volatile("" : "+r"(x));
		}
	return x;
}

#endif
