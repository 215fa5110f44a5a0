// SPDX-License-Identifier: MIT
/*
 * A CPU-bound benchmark for the gate's real-program tests, with known self-time shares:
 * work_a 40%, work_b 25%, work_c 15%, work_d 10%, work_e 5%, work_f 5% (each its own
 * noinline loop, called from process() under main), and a calibrated regression: extra
 * iterations of work_d's own loop worth PCT% of the total work, or work_a made FACTOR
 * times cheaper.
 *
 *   gate-work UNITS [inject PCT | faster FACTOR]
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

__attribute__((noinline)) uint64_t process(uint64_t units, double inject, double faster);
__attribute__((noinline)) uint64_t process(uint64_t units, double inject, double faster)
{
	uint64_t r = 0, per = units * UNIT / 100, round;

	/* 20 rounds interleave the functions, so no phase of the run is one function. */
	for (round = 0; round < 20; round++) {
		r += work_a((uint64_t)(per * 40 / 20 / faster));
		r += work_b(per * 25 / 20);
		r += work_c(per * 15 / 20);
		r += work_d(per * 10 / 20 + (uint64_t)(per * inject / 20));
		r += work_e(per * 5 / 20);
		r += work_f(per * 5 / 20);
	}
	return r;
}

int main(int argc, char **argv)
{
	double inject = 0, faster = 1;
	char kind[16] = "";
	double val = 0;
	long units;

	if (argc < 2 || (units = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: gate-work UNITS [inject PCT | faster FACTOR]\n");
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
	sink = process((uint64_t)units, inject, faster);
	return sink == 42 ? 1 : 0;
}
