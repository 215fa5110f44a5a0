// SPDX-License-Identifier: MIT
/*
 * Half waiting, half computing: ROUNDS times, wait_for_io() sleeps MS milliseconds in
 * nanosleep() and compute() burns about as much CPU. Usage: offcpu-sleep [ROUNDS [MS]].
 * Prints the addresses of both functions, so tests can check recovered frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static __attribute__((noinline)) void wait_for_io(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static __attribute__((noinline)) void compute(long ms)
{
	struct timespec start, now;
	double x = 1.0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do {
		for (int i = 0; i < 10000; i++)
			x = x * 1.0000001 + 0.5 / (x + i);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
	sink = x;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 10, ms = argc > 2 ? atol(argv[2]) : 50;

	printf("wait_for_io %p\ncompute %p\n", (void *)wait_for_io, (void *)compute);
	fflush(stdout);
	alarm(60);
	for (long r = 0; r < rounds; r++) {
		wait_for_io(ms);
		compute(ms);
	}
	return 0;
}
