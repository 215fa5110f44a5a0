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
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static long rounds = 40, hold_us = 2000, sleep_us = 2000;
static int hold_io;
static volatile double sink;

static __attribute__((noinline)) void busy(long us)
{
	struct timespec t0, now;
	double x = 1.0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 0.5 / (x + i);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - t0.tv_sec) * 1000000 + (now.tv_nsec - t0.tv_nsec) / 1000 < us);
	sink = x;
}

static __attribute__((noinline)) void slow_io(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

static __attribute__((noinline)) void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&start);
	/* a loaded machine may wake the other thread late; start the hold once it blocks */
	for (int i = 0; i < 100000 && __atomic_load_n(&lock.__data.__lock, __ATOMIC_RELAXED) != 2; i++)
		sched_yield();
	if (hold_io)
		slow_io(hold_us);
	else
		busy(hold_us);
	pthread_mutex_unlock(&lock);
}

static __attribute__((noinline)) void contended(void)
{
	pthread_barrier_wait(&start);
	pthread_mutex_lock(&lock);
	sink = sink + 1;
	pthread_mutex_unlock(&lock);
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
		if (r % 2 == id)
			hold_lock();
		else
			contended();
		compute();
		wait_for_io();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "cpu") && strcmp(argv[4], "io"))) {
		fprintf(stderr, "usage: gate-lock ROUNDS HOLD_US SLEEP_US [cpu|io]\n");
		return 64;
	}
	hold_io = argc == 5 && !strcmp(argv[4], "io");
	rounds = atol(argv[1]);
	hold_us = atol(argv[2]);
	sleep_us = atol(argv[3]);
	alarm(60);
	if (pthread_barrier_init(&start, NULL, 2))
		return 1;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
