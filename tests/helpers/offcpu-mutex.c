// SPDX-License-Identifier: MIT
/*
 * Two threads fight over one mutex. Each round one thread takes the lock in hold_lock(),
 * meets the other at a barrier, waits until the other blocks on the futex in contended()
 * (glibc marks a contended lock with 2), then computes for US microseconds and unlocks.
 * The roles alternate, so each thread waits ROUNDS / 2 times for at least US.
 * Usage: offcpu-mutex [ROUNDS [US]].
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static long rounds = 200, hold_us = 1000;
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

static __attribute__((noinline)) void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&start);
	/* a loaded machine may wake the other thread late; do not let it miss the contention */
	for (int i = 0; i < 100000 && __atomic_load_n(&lock.__data.__lock, __ATOMIC_RELAXED) != 2; i++)
		sched_yield();
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

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long r = 0; r < rounds; r++) {
		if (r % 2 == id)
			hold_lock();
		else
			contended();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		hold_us = atol(argv[2]);
	printf("contended %p\n", (void *)contended);
	fflush(stdout);
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
