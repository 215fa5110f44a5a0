// SPDX-License-Identifier: MIT
/*
 * Unit tests for convert/flow.c against known constructions: counts of a program whose
 * executions are known (a loop, a diamond, a block without an estimate) come back exactly
 * from their block counts, and noisy estimates on a random CFG still give flow that every
 * block conserves.
 */
#include <stdint.h>
#include <stdlib.h>

#include "convert/flow.h"
#include "tests/unit/test.h"

#define W 1024

/* f(n): for (10 calls) { head; 100 x body } -> 0 entry, 1 exit, 2 head, 3 body, 4 tail */
static int test_loop(void)
{
	const struct convert_flow_arc arcs[] = {
		{ 0, 2, 1 }, { 2, 3, 1 }, { 3, 2, 1 }, { 2, 4, 1 }, { 4, 1, 1 },
	};
	const struct convert_flow_block blk[] = {
		{ 0, 0, 0 }, { 0, 0, 0 }, { 1010, W, 0 }, { 1000, W, 0 }, { 10, W, 0 },
	};
	const uint64_t want[] = { 10, 1000, 1000, 10, 10 };
	uint64_t flow[5];
	size_t i;

	T_ASSERT(convert_flow_solve(5, 0, 1, blk, arcs, 5, flow) == 0);
	for (i = 0; i < 5; i++)
		T_ASSERT_EQ_U64(flow[i], want[i]);
	return T_OK;
}

/* a diamond 70/30, its join without an estimate */
static int test_diamond_unknown(void)
{
	const struct convert_flow_arc arcs[] = {
		{ 0, 2, 1 }, { 2, 3, 1 }, { 2, 4, 1 }, { 3, 5, 1 }, { 4, 5, 1 }, { 5, 1, 1 },
	};
	const struct convert_flow_block blk[] = {
		{ 0, 0, 0 }, { 0, 0, 0 }, { 100, W, 0 }, { 70, W, 0 }, { 30, W, 0 }, { 0, 0, 0 },
	};
	const uint64_t want[] = { 100, 70, 30, 70, 30, 100 };
	uint64_t flow[6];
	size_t i;

	T_ASSERT(convert_flow_solve(6, 0, 1, blk, arcs, 6, flow) == 0);
	for (i = 0; i < 6; i++)
		T_ASSERT_EQ_U64(flow[i], want[i]);
	return T_OK;
}

/* random CFGs, random estimates: every block but entry and exit conserves flow */
static int test_conservation(void)
{
	unsigned seed = 12345, round;

	for (round = 0; round < 200; round++) {
		uint32_t nb = 3 + (uint32_t)(rand_r(&seed) % 40), b;
		size_t na = 0, i;
		struct convert_flow_arc arcs[200];
		struct convert_flow_block blk[43] = { { 0, 0, 0 } };
		uint64_t flow[200], in[43] = { 0 }, out[43] = { 0 };

		arcs[na++] = (struct convert_flow_arc){ 0, 2, 1 };
		for (b = 2; b < nb; b++) {
			/* a successor ahead (or the exit), sometimes a back edge */
			arcs[na++] = (struct convert_flow_arc){ b, b + 1 < nb ? b + 1 : 1, 1 };
			if (rand_r(&seed) % 3 == 0)
				arcs[na++] = (struct convert_flow_arc){ b, 2 + (uint32_t)(rand_r(&seed) % (nb - 2)), 1 };
			if (rand_r(&seed) % 4 == 0)
				arcs[na++] = (struct convert_flow_arc){ b, 1, 4 * W };
			if (rand_r(&seed) % 5) {
				blk[b].estimate = (uint64_t)(rand_r(&seed) % 1000);
				blk[b].weight = rand_r(&seed) % 2 ? W : W / 4;
			}
		}
		T_ASSERT(convert_flow_solve(nb, 0, 1, blk, arcs, na, flow) == 0);
		for (i = 0; i < na; i++) {
			out[arcs[i].src] += flow[i];
			in[arcs[i].dst] += flow[i];
		}
		for (b = 2; b < nb; b++)
			T_ASSERT_EQ_U64(in[b], out[b]);
		T_ASSERT_EQ_U64(out[0], in[1]);
	}
	return T_OK;
}

static int test_bad_input(void)
{
	const struct convert_flow_arc arcs[] = { { 0, 7, 1 } };
	const struct convert_flow_block blk[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	uint64_t flow[1];

	T_ASSERT(convert_flow_solve(2, 0, 1, blk, arcs, 1, flow) == -1);
	T_ASSERT(convert_flow_solve(2, 0, 5, blk, arcs, 0, flow) == -1);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "a loop's counts come back from its block counts", test_loop },
	{ "a diamond's split, through a block without an estimate", test_diamond_unknown },
	{ "random CFGs and estimates: flow is conserved", test_conservation },
	{ "arcs or blocks out of range are refused", test_bad_input },
};

T_MAIN(cases)
