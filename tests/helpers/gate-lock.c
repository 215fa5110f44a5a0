// SPDX-License-Identifier: MIT
/*
 * A lock-contention regression for the off-CPU gate. Two threads; each round one thread
 * takes the lock in hold_lock() and works for HOLD microseconds while the other blocks
 * on it in contended(); then both compute 1 ms in compute() (the CPU profile, the same
 * whatever HOLD is) and sleep SLEEP microseconds in wait_for_io(). The sleep is
 * steady off-CPU time, so doubling HOLD raises contended()'s share of the off-CPU time.
 * MODE "cpu" computes under the lock (busy()); "io" sleeps under it (slow_io()), so the
 * threads hardly run and a loaded machine hardly preempts them: their off-CPU time is
 * then nearly all voluntary waiting, the same from one collection to the next.
 * Usage: gate-lock ROUNDS HOLD_US SLEEP_US [cpu|io].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lockpair.h"

static long rounds = 40, sleep_us = 2000;

static __attribute__((noinline)) void slow_io(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

static __attribute__((noinline)) void compute(void)
{
	busy(1000);
}

static __attribute__((noinline)) void wait_for_io(void)
{
	slow_io(sleep_us);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long r = 0; r < rounds; r++) {
		take_turn(r, id);
		compute();
		wait_for_io();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "cpu") && strcmp(argv[4], "io"))) {
		fprintf(stderr, "usage: gate-lock ROUNDS HOLD_US SLEEP_US [cpu|io]\n");
		return 64;
	}
	if (argc == 5 && !strcmp(argv[4], "io"))
		hold_work = slow_io;
	rounds = atol(argv[1]);
	hold_us = atol(argv[2]);
	sleep_us = atol(argv[3]);
	alarm(60);
	return run_pair(worker);
}
