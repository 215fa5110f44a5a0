// SPDX-License-Identifier: MIT
/*
 * A CPU-bound program with a known call structure for stack tests:
 *   main -> outer_a -> leaf          20% of the work
 *   main -> outer_b -> leaf          30%
 *   main -> outer_b -> mid -> deep   50%
 * leaf is reached from two callers, so a profile must keep the paths apart. The work is
 * the same loop everywhere, so time shares follow the iteration counts. Every function
 * makes a call after its loop: gcc omits the frame pointer setup in leaf functions,
 * which hides the caller of a leaf from frame-pointer unwinding.
 * usage: callstacks [SCALE]   (default 10, ~10 ms of CPU per unit)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t sink;

__attribute__((noinline)) void note(uint64_t x)
{
	__asm__ volatile("" : : "r"(x) : "memory");
	sink += x & 1;
}

static inline __attribute__((always_inline)) uint64_t spin(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) uint64_t leaf(uint64_t n)
{
	uint64_t x = spin(n, n + 1);

	note(x);
	return x + 1;
}

__attribute__((noinline)) uint64_t deep(uint64_t n)
{
	uint64_t x = spin(n, n + 2);

	note(x);
	return x + 2;
}
__attribute__((noinline)) uint64_t mid(uint64_t n) { return deep(n) + 1; }
__attribute__((noinline)) uint64_t outer_a(uint64_t n) { return leaf(n * 20) + 1; }
__attribute__((noinline)) uint64_t outer_b(uint64_t n) { return leaf(n * 30) + mid(n * 50); }

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 10;
	long r;

	for (r = 0; r < scale * 10; r++) {
		sink += outer_a(4000);
		sink += outer_b(4000);
	}
	printf("%llu\n", (unsigned long long)(sink & 1));
	return 0;
}
