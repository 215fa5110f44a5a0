/* SPDX-License-Identifier: MIT */
/*
 * Two threads fighting over one mutex, shared by the lock-contention helpers (offcpu-mutex,
 * gate-lock). hold_lock() takes the lock, meets the other thread at a barrier, waits until
 * it blocks on the futex in contended() (glibc marks a contended lock with 2), runs
 * hold_work(hold_us) and unlocks. The tests look for these functions' frames by name, so
 * they stay noinline. Included by one .c file each (everything here is static).
 */
#ifndef PGO_TESTS_HELPERS_LOCKPAIR_H
#define PGO_TESTS_HELPERS_LOCKPAIR_H

#include <pthread.h>
#include <sched.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static long hold_us;
static volatile double sink;

/* Compute for us microseconds of wall time. */
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

static void (*hold_work)(long us) = busy;

static __attribute__((noinline)) void hold_lock(void)
{
	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&start);
	/* a loaded machine may wake the other thread late; start the hold once it blocks */
	for (int i = 0; i < 100000 && __atomic_load_n(&lock.__data.__lock, __ATOMIC_RELAXED) != 2; i++)
		sched_yield();
	hold_work(hold_us);
	pthread_mutex_unlock(&lock);
}

static __attribute__((noinline)) void contended(void)
{
	pthread_barrier_wait(&start);
	pthread_mutex_lock(&lock);
	sink = sink + 1;
	pthread_mutex_unlock(&lock);
}

/*
 * Round r for thread id (0 or 1): the threads take turns holding the lock. Inlined: the
 * stacks show the worker calling hold_lock() or contended() directly.
 */
static inline __attribute__((always_inline)) void take_turn(long r, long id)
{
	if (r % 2 == id)
		hold_lock();
	else
		contended();
}

/* Run worker((void *)0) and worker((void *)1) in two threads; 0 once both are done. */
static int run_pair(void *(*worker)(void *))
{
	pthread_t t[2];

	if (pthread_barrier_init(&start, NULL, 2))
		return 1;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

#endif
