// SPDX-License-Identifier: MIT
/*
 * A CPU-bound benchmark with known function shares: hot50, hot30, hot15 and hot5 do the
 * same inner loop 50, 30, 15 and 5 times as often. Each function's own CPU time is
 * measured with CLOCK_THREAD_CPUTIME_ID and printed ("share hot50 49.8"), so a test can
 * compare a profile with the truth without trusting the profiler. The last line is the
 * whole process's CPU time from getrusage ("rusage_ns N").
 *
 * usage: shares [SCALE]   SCALE (default 10) = total work in units of ~10 ms of CPU
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define ROUNDS 50
#define UNIT_ITERS 40000ULL /* inner-loop iterations per share percent per SCALE unit */

static uint64_t sink;

/*
 * Called from the hot loops now and then, so the hot functions are not leaves: gcc 12 sets
 * up no frame in a leaf even with -fno-omit-frame-pointer, and a frame-pointer walk from a
 * frameless leaf skips its caller.
 */
__attribute__((noinline)) void checkpoint(uint64_t x)
{
	sink ^= x;
}

static inline __attribute__((always_inline)) uint64_t spin(uint64_t n, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
		if ((i & 0xffff) == 0)
			checkpoint(x);
	}
	return x;
}

__attribute__((noinline)) uint64_t hot50(uint64_t n) { return spin(n * 50, n + 1); }
__attribute__((noinline)) uint64_t hot30(uint64_t n) { return spin(n * 30, n + 2); }
__attribute__((noinline)) uint64_t hot15(uint64_t n) { return spin(n * 15, n + 3); }
__attribute__((noinline)) uint64_t hot5(uint64_t n) { return spin(n * 5, n + 4); }

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "hot50", "hot30", "hot15", "hot5" };
	uint64_t (*fns[])(uint64_t) = { hot50, hot30, hot15, hot5 };
	uint64_t ns[4] = { 0 }, total = 0, n, t;
	long scale = argc > 1 ? atol(argv[1]) : 10;
	struct rusage ru;
	int r, f;

	if (scale <= 0) {
		fprintf(stderr, "usage: shares [SCALE]\n");
		return 2;
	}
	n = (uint64_t)scale * UNIT_ITERS / ROUNDS;
	for (r = 0; r < ROUNDS; r++)
		for (f = 0; f < 4; f++) {
			t = thread_ns();
			sink += fns[f](n);
			ns[f] += thread_ns() - t;
		}
	for (f = 0; f < 4; f++)
		total += ns[f];
	for (f = 0; f < 4; f++)
		printf("share %s %.2f\n", names[f], 100.0 * (double)ns[f] / (double)total);
	printf("cpu_ns %llu\n", (unsigned long long)total);
	if (!getrusage(RUSAGE_SELF, &ru))
		printf("rusage_ns %llu\n",
		       (unsigned long long)((uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
					    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL));
	return 0;
}
