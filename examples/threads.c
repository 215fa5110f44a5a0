// SPDX-License-Identifier: MIT
/*
 * A multi-threaded benchmark: NTHREADS workers (default 4) each burn about MS ms of CPU
 * (default 200) in worker_spin(), then the main thread burns its own share in main_spin().
 * Every thread prints its tid ("tid 1234") so a test can check each one was sampled.
 *
 * usage: threads [NTHREADS [MS]]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

static long ms = 200;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static uint64_t sink;

__attribute__((noinline)) void *worker_spin(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&out);
	printf("tid %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_mutex_unlock(&out);
	__atomic_fetch_add(&sink, burn_clock(CLOCK_THREAD_CPUTIME_ID, (uint64_t)ms * 1000000ULL),
			   __ATOMIC_RELAXED);
	return NULL;
}

__attribute__((noinline)) void main_spin(void)
{
	__atomic_fetch_add(&sink, burn_clock(CLOCK_THREAD_CPUTIME_ID, (uint64_t)ms * 1000000ULL / 2),
			   __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4, i;
	pthread_t *t;

	if (argc > 2)
		ms = atol(argv[2]);
	if (n <= 0 || n > 1024 || ms <= 0) {
		fprintf(stderr, "usage: threads [NTHREADS [MS]]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	printf("tid %ld\n", (long)getpid());
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, worker_spin, NULL))
			return 1;
	main_spin();
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
