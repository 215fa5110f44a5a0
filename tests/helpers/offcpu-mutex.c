// SPDX-License-Identifier: MIT
/*
 * Two threads fight over one mutex (lockpair.h). Each round one thread takes the lock in
 * hold_lock(), waits until the other blocks in contended(), then computes for US
 * microseconds in busy() and unlocks.
 * The roles alternate, so each thread waits ROUNDS / 2 times for at least US.
 * Usage: offcpu-mutex [ROUNDS [US]].
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lockpair.h"

static long rounds = 200;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long r = 0; r < rounds; r++)
		take_turn(r, id);
	return NULL;
}

int main(int argc, char **argv)
{
	hold_us = 1000;
	if (argc > 1)
		rounds = atol(argv[1]);
	if (argc > 2)
		hold_us = atol(argv[2]);
	printf("contended %p\n", (void *)contended);
	fflush(stdout);
	alarm(60);
	return run_pair(worker);
}
