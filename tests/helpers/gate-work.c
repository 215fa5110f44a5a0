// SPDX-License-Identifier: MIT
/*
 * A CPU-bound benchmark for the gate's real-program tests, with known self-time shares
 * (each function its own noinline loop, called from process() under main):
 *   flat (default): work_a 40%, work_b 25%, work_c 15%, work_d 10%, work_e 5%, work_f 5%
 *   hot (-s hot):   work_a 70%, work_b 10%, work_c 8%,  work_d 6%,  work_e 3%, work_f 3%
 * and a calibrated regression: extra iterations of work_d's own loop worth PCT% of the
 * total work, or work_a made FACTOR times cheaper.
 *
 *   gate-work [-s flat|hot] UNITS [inject PCT | faster FACTOR]
 *
 * UNITS scales the total work (1 unit is about 10 ms of CPU on this machine class). When
 * no injection is given on the command line, a file "gate-work.inject" in the current
 * directory may hold one ("inject 5"), so a commit can change the program's behaviour in
 * a git-flow test without changing its command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT 5000000ULL /* loop iterations per unit (all functions together) */

static uint64_t sink;

#define WORK_FN(name, salt)                                                    \
	__attribute__((noinline)) uint64_t name(uint64_t n);                   \
	__attribute__((noinline)) uint64_t name(uint64_t n)                    \
	{                                                                      \
		uint64_t i, x = n + (salt);                                    \
		for (i = 0; i < n; i++) {                                      \
			x ^= x << 13;                                          \
			x ^= x >> 7;                                           \
			x ^= x << 17;                                          \
			__asm__ volatile("" : "+r"(x));                        \
		}                                                              \
		return x;                                                      \
	}

WORK_FN(work_a, 1)
WORK_FN(work_b, 2)
WORK_FN(work_c, 3)
WORK_FN(work_d, 4)
WORK_FN(work_e, 5)
WORK_FN(work_f, 6)

static const unsigned shapes[2][6] = {
	{ 40, 25, 15, 10, 5, 5 },
	{ 70, 10, 8, 6, 3, 3 },
};

__attribute__((noinline)) uint64_t process(uint64_t units, const unsigned *sh, double inject,
					   double faster);
__attribute__((noinline)) uint64_t process(uint64_t units, const unsigned *sh, double inject,
					   double faster)
{
	uint64_t r = 0, per = units * UNIT / 100, round;

	/* 20 rounds interleave the functions, so no phase of the run is one function. */
	for (round = 0; round < 20; round++) {
		r += work_a((uint64_t)(per * sh[0] / 20 / faster));
		r += work_b(per * sh[1] / 20);
		r += work_c(per * sh[2] / 20);
		r += work_d(per * sh[3] / 20 + (uint64_t)(per * inject / 20));
		r += work_e(per * sh[4] / 20);
		r += work_f(per * sh[5] / 20);
	}
	return r;
}

int main(int argc, char **argv)
{
	double inject = 0, faster = 1;
	char kind[16] = "";
	double val = 0;
	long units;
	int shape = 0;

	if (argc >= 3 && !strcmp(argv[1], "-s")) {
		shape = !strcmp(argv[2], "hot");
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || (units = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: gate-work [-s flat|hot] UNITS [inject PCT | faster FACTOR]\n");
		return 64;
	}
	if (argc >= 4) {
		snprintf(kind, sizeof(kind), "%s", argv[2]);
		val = atof(argv[3]);
	} else {
		FILE *f = fopen("gate-work.inject", "r");

		if (f) {
			if (fscanf(f, "%15s %lf", kind, &val) != 2)
				kind[0] = '\0';
			fclose(f);
		}
	}
	if (!strcmp(kind, "inject"))
		inject = val;
	else if (!strcmp(kind, "faster") && val > 0)
		faster = val;
	sink = process((uint64_t)units, shapes[shape], inject, faster);
	return sink == 42 ? 1 : 0;
}
