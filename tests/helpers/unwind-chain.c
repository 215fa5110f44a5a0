// SPDX-License-Identifier: MIT
/*
 * A known call chain for the unwinding tests: main -> chain_a -> chain_b -> chain_c,
 * each noinline and not a tail call, and chain_c spends its time in libc (memset,
 * which keeps no frame pointer) and in its own loop. Usage: unwind-chain [MS_OF_CPU]
 * (default 400). The Makefile builds it with frame pointers; tests also build it with
 * plain gcc -O2 -g, without.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned char buf[1 << 16];

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned chain_c(unsigned seed)
{
	unsigned sum = 0, i;

	memset(buf, (int)seed, sizeof(buf));
	for (i = 0; i < sizeof(buf); i += 64)
		sum = sum * 31 + buf[i];
	__asm__ volatile("" : "+r"(sum));
	return sum;
}

__attribute__((noinline)) static unsigned chain_b(unsigned seed)
{
	unsigned r = chain_c(seed + 1);

	__asm__ volatile("" : "+r"(r));
	return r ^ seed;
}

__attribute__((noinline)) static unsigned chain_a(unsigned seed)
{
	unsigned r = chain_b(seed * 3);

	__asm__ volatile("" : "+r"(r));
	return r + seed;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400, t0 = cpu_ms();
	unsigned acc = 0, n = 0;

	while (cpu_ms() - t0 < ms) {
		acc += chain_a(n++);
		__asm__ volatile("" : "+r"(acc));
	}
	printf("calls=%u acc=%u\n", n, acc);
	return 0;
}
