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

#include "burn.h"

__attribute__((noinline)) uint64_t burn(uint64_t budget)
{
	return burn_clock(CLOCK_PROCESS_CPUTIME_ID, budget);
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
