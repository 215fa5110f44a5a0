/* SPDX-License-Identifier: MIT */
/*
 * Block counts estimated from samples -> arc counts that conserve flow, by minimum-cost
 * flow (the construction of "profi", LLVM's SampleProfileInference, reduced):
 *
 * Every block i is an edge in_i -> out_i. Its flow f_i is written e_i - u_i + o_i with
 * u_i in [0, e_i] (undercount) and o_i >= 0 (overcount), both costing w_i per unit, so
 * that the cost of a block is w_i |f_i - e_i| (or a separate cost per unit above e_i: a
 * lower bound). The first unit above an estimate costs little (SLACK_COST): a block
 * estimated at 0 samples may well have run a few times, so flow that must pass a block
 * run once per call (a function's straight-line code) does not detour. Pre-saturating the e_i part leaves a
 * supply of e_i at out_i and a demand of e_i at in_i; the arcs of the CFG (out_u -> in_v,
 * unbounded, cost per unit from the caller) and an unbounded exit -> entry arc close the
 * circulation. A super source feeding every out_i and a super sink draining every in_i
 * make it a min-cost max-flow, always feasible through the undercount edges, solved by
 * successive shortest paths with Dijkstra over reduced costs (all costs start
 * non-negative, so the potentials start at zero). Integer costs and capacities: the
 * result conserves flow exactly at every block, which is what gcc checks when it reads
 * a .gcda (the spanning-tree arcs it derives come out non-negative).
 *
 * A block with weight 0 has no estimate: its flow is free. Blocks and arcs are the
 * caller's numbering; nothing here knows gcov.
 */
#ifndef PGO_CONVERT_FLOW_H
#define PGO_CONVERT_FLOW_H

#include <stddef.h>
#include <stdint.h>

struct convert_flow_arc {
	uint32_t src, dst;
	uint32_t cost;                 /* per unit of flow */
};

struct convert_flow_block {
	uint64_t estimate;
	uint32_t weight;               /* cost per unit away from the estimate; 0: unknown */
	uint32_t over;                 /* if not 0, the cost per unit above it instead (1:
					  nearly free, the estimate is a lower bound) */
};

/* Bounds that keep a solve's time and memory in check (a larger function is refused). */
#define CONVERT_FLOW_MAX_BLOCKS (1u << 20)
#define CONVERT_FLOW_MAX_ARCS (1u << 22)

/*
 * Solve for the arc flows (flow[nr_arcs], one per arc). entry and exit are blocks; the
 * solve adds the exit -> entry arc itself. Returns 0, or -1 after reporting (out of
 * memory, too large, an arc naming no block).
 */
int convert_flow_solve(uint32_t nr_blocks, uint32_t entry, uint32_t exit,
		       const struct convert_flow_block *blocks,
		       const struct convert_flow_arc *arcs, size_t nr_arcs, uint64_t *flow);

#endif
