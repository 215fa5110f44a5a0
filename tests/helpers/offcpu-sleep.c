// SPDX-License-Identifier: MIT
/*
 * Half waiting, half computing, whatever the machine's load: ROUNDS times, compute()
 * burns MS milliseconds of CPU, then wait_for_io() sleeps in nanosleep() for as long as
 * that compute chunk was on a CPU or waiting for one, as the scheduler accounts it
 * (/proc/thread-self/schedstat: run time + run-queue delay). On a loaded machine compute()
 * is preempted and its chunk takes longer, but the sleep grows with it, so the split of
 * the wall view (on-CPU + off-CPU time) stays 50/50 (the sleep only overshoots, by the
 * wakeup latency). Wall-clock time the guest cannot see (a VM whose CPU the hypervisor
 * stalls) is left out on both sides; without schedstat the sleep is the chunk's wall time.
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

/* This thread's run time plus run-queue delay in ns, or -1 without schedstat. */
static long long sched_ns(void)
{
	long long run, delay;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%lld %lld", &run, &delay);
	fclose(f);
	return n == 2 ? run + delay : -1;
}

/* Burn ms of this thread's CPU time; returns the time it was on or waiting for a CPU. */
static __attribute__((noinline)) long long compute(long ms)
{
	long long wall0 = ns_of(CLOCK_MONOTONIC), cpu0 = ns_of(CLOCK_THREAD_CPUTIME_ID);
	long long sched0 = sched_ns(), sched1;
	double x = 1.0;

	do {
		for (int i = 0; i < 10000; i++)
			x = x * 1.0000001 + 0.5 / (x + i);
	} while (ns_of(CLOCK_THREAD_CPUTIME_ID) - cpu0 < ms * 1000000LL);
	sink = x;
	sched1 = sched_ns();
	if (sched0 < 0 || sched1 < sched0)
		return ns_of(CLOCK_MONOTONIC) - wall0;
	return sched1 - sched0;
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
