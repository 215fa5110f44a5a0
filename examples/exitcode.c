// SPDX-License-Identifier: MIT
/*
 * A benchmark that fails: burns MS ms of CPU (default 50), then exits with CODE, or
 * kills itself with signal SIG when CODE is "sig:SIG". With "wait", it instead burns
 * CPU until a signal ends it (for interrupt tests).
 *
 * usage: exitcode CODE [MS] | exitcode sig:SIG [MS] | exitcode wait
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t proc_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) uint64_t burn(uint64_t budget)
{
	uint64_t x = 88172645463325252ULL, start = proc_ns();
	int i;

	while (!budget || proc_ns() - start < budget)
		for (i = 0; i < 20000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			__asm__ volatile("" : "+r"(x));
		}
	return x;
}

int main(int argc, char **argv)
{
	long ms = argc > 2 ? atol(argv[2]) : 50;

	if (argc < 2) {
		fprintf(stderr, "usage: exitcode CODE [MS] | exitcode sig:SIG [MS] | exitcode wait\n");
		return 2;
	}
	if (!strcmp(argv[1], "wait")) {
		/* a shell's background job starts with SIGINT ignored */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		printf("ready\n");
		fflush(stdout);
		burn(0);
	}
	burn((uint64_t)ms * 1000000ULL);
	if (!strncmp(argv[1], "sig:", 4)) {
		signal(atoi(argv[1] + 4), SIG_DFL);
		raise(atoi(argv[1] + 4));
	}
	return atoi(argv[1]);
}
