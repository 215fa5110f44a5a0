// SPDX-License-Identifier: MIT
/*
 * Two threads fight over one mutex: each holds it in hold_lock() while computing, so the
 * other waits on a futex under contended(). Usage: offcpu-mutex [ROUNDS [US]].
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long rounds = 200, hold_us = 1000;
static volatile double sink;

static __attribute__((noinline)) void busy(long us)
{
	struct timespec start, now;
	double x = 1.0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 0.5 / (x + i);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000 < us);
	sink = x;
}

static __attribute__((noinline)) void contended(void)
{
	pthread_mutex_lock(&lock);
	busy(hold_us);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	for (long r = 0; r < rounds; r++) {
		contended();
		busy(hold_us / 10);
	}
	return arg;
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
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
