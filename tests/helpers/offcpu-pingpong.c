// SPDX-License-Identifier: MIT
/*
 * Two threads bounce one byte over two pipes N times: every round trip is two blocking
 * reads, i.e. two off-CPU intervals. Usage: offcpu-pingpong [N]. Prints wall and CPU
 * (user + sys, both threads) ns per round trip.
 */
#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long n = 100000;

static void *peer(void *arg)
{
	char c;

	for (long i = 0; i < n; i++) {
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	}
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		n = atol(argv[1]);
	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, peer, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("%.0f ns per round trip\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	printf("%.0f cpu ns per round trip\n", ((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
						(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3) / n);
	return 0;
}
