// SPDX-License-Identifier: MIT
/*
 * Half waiting, half computing, whatever the machine's load: ROUNDS times, compute()
 * burns MS milliseconds of CPU, then wait_for_io() sleeps in nanosleep() for as long as
 * that compute chunk took in wall time (CLOCK_MONOTONIC). On a loaded machine compute()
 * is preempted and its chunk takes longer, but the sleep grows with it, so the wall-clock
 * split stays 50/50 (the sleep only overshoots, by the wakeup latency).
 * Usage: offcpu-sleep [ROUNDS [MS]]. Prints the addresses of both functions, so tests
 * can check recovered frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static long long ns_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static __attribute__((noinline)) void wait_for_io(long long ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

	nanosleep(&ts, NULL);
}

/* Burn ms of this thread's CPU time; returns the wall time it took, in ns. */
static __attribute__((noinline)) long long compute(long ms)
{
	long long wall0 = ns_of(CLOCK_MONOTONIC), cpu0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
	double x = 1.0;

	do {
		for (int i = 0; i < 10000; i++)
			x = x * 1.0000001 + 0.5 / (x + i);
	} while (ns_of(CLOCK_THREAD_CPUTIME_ID) - cpu0 < ms * 1000000LL);
	sink = x;
	return ns_of(CLOCK_MONOTONIC) - wall0;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 10, ms = argc > 2 ? atol(argv[2]) : 50;

	printf("wait_for_io %p\ncompute %p\n", (void *)wait_for_io, (void *)compute);
	fflush(stdout);
	alarm(60);
	for (long r = 0; r < rounds; r++)
		wait_for_io(compute(ms));
	return 0;
}
