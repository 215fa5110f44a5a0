// SPDX-License-Identifier: MIT
/* Minimum-cost flow over a function's blocks (convert/flow.h). */
#include <stdlib.h>
#include <string.h>

#include "convert/flow.h"
#include "lib/alloc.h"
#include "lib/report.h"

#define CAP_INF ((int64_t)1 << 60)
#define DIST_INF INT64_MAX
#define SLACK_COST 2

struct edge {
	uint32_t to, next;             /* next: the next edge out of the same node, or NONE */
	int64_t cap, cost;
};
#define NONE UINT32_MAX

struct net {
	struct edge *e;
	uint32_t nr_e, nr_nodes;
	uint32_t *head;
};

/* An edge and its residual twin (index ^ 1). Returns the edge's index. */
static uint32_t add_edge(struct net *n, uint32_t from, uint32_t to, int64_t cap, int64_t cost)
{
	uint32_t i = n->nr_e;

	n->e[i] = (struct edge){ to, n->head[from], cap, cost };
	n->head[from] = i;
	n->e[i + 1] = (struct edge){ from, n->head[to], 0, -cost };
	n->head[to] = i + 1;
	n->nr_e += 2;
	return i;
}

/* A binary min-heap of (dist, node), with stale entries skipped on pop. */
struct heap {
	struct hent {
		int64_t d;
		uint32_t v;
	} *h;
	size_t nr, alloc;
};

static int heap_push(struct heap *hp, int64_t d, uint32_t v)
{
	size_t i;

	if (PGO_ALLOC_GROW_UNINIT(hp->h, hp->nr + 1, hp->alloc) < 0)
		return -1;
	i = hp->nr++;
	while (i && hp->h[(i - 1) / 2].d > d) {
		hp->h[i] = hp->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	hp->h[i] = (struct hent){ d, v };
	return 0;
}

static struct hent heap_pop(struct heap *hp)
{
	struct hent top = hp->h[0], last = hp->h[--hp->nr];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < hp->nr) {
		if (c + 1 < hp->nr && hp->h[c + 1].d < hp->h[c].d)
			c++;
		if (hp->h[c].d >= last.d)
			break;
		hp->h[i] = hp->h[c];
		i = c;
	}
	if (hp->nr)
		hp->h[i] = last;
	return top;
}

/*
 * Shortest paths from s by reduced costs; prev[v] is the edge into v. Returns 1 if t is
 * reachable, 0 if not, -1 when out of memory.
 */
static int dijkstra(const struct net *n, uint32_t s, uint32_t t, const int64_t *pot, int64_t *dist,
		    uint32_t *prev, struct heap *hp)
{
	uint32_t v, i;

	for (v = 0; v < n->nr_nodes; v++)
		dist[v] = DIST_INF;
	dist[s] = 0;
	hp->nr = 0;
	if (heap_push(hp, 0, s) < 0)
		return -1;
	while (hp->nr) {
		struct hent x = heap_pop(hp);

		if (x.d != dist[x.v])
			continue;
		for (i = n->head[x.v]; i != NONE; i = n->e[i].next) {
			const struct edge *e = &n->e[i];
			int64_t nd;

			if (e->cap <= 0 || pot[e->to] == DIST_INF)
				continue;
			nd = x.d + e->cost + pot[x.v] - pot[e->to];
			if (nd < dist[e->to]) {
				dist[e->to] = nd;
				prev[e->to] = i;
				if (heap_push(hp, nd, e->to) < 0)
					return -1;
			}
		}
	}
	return dist[t] != DIST_INF;
}

static int min_cost_flow(struct net *n, uint32_t s, uint32_t t)
{
	int64_t *pot = pgo_calloc(n->nr_nodes, sizeof(*pot));
	int64_t *dist = pgo_calloc(n->nr_nodes, sizeof(*dist));
	uint32_t *prev = pgo_calloc(n->nr_nodes, sizeof(*prev));
	struct heap hp = { NULL, 0, 0 };
	int r = -1;

	if (!pot || !dist || !prev)
		goto out;
	for (;;) {
		int64_t push = CAP_INF;
		uint32_t v;

		r = dijkstra(n, s, t, pot, dist, prev, &hp);
		if (r <= 0)
			break;
		for (v = 0; v < n->nr_nodes; v++)
			if (dist[v] != DIST_INF)
				pot[v] += dist[v];
		for (v = t; v != s; v = n->e[prev[v] ^ 1].to)
			if (n->e[prev[v]].cap < push)
				push = n->e[prev[v]].cap;
		for (v = t; v != s; v = n->e[prev[v] ^ 1].to) {
			n->e[prev[v]].cap -= push;
			n->e[prev[v] ^ 1].cap += push;
		}
	}
out:
	free(pot);
	free(dist);
	free(prev);
	free(hp.h);
	return r < 0 ? pgo_error("out of memory (flow over %u nodes)", n->nr_nodes) : 0;
}

int convert_flow_solve(uint32_t nr_blocks, uint32_t entry, uint32_t exit,
		       const struct convert_flow_block *blocks,
		       const struct convert_flow_arc *arcs, size_t nr_arcs, uint64_t *flow)
{
	struct net n = { NULL, 0, 0, NULL };
	uint32_t *arc_edge = NULL, s, t, b;
	size_t i, max_e;
	int ret = -1;

	if (nr_blocks > CONVERT_FLOW_MAX_BLOCKS || nr_arcs > CONVERT_FLOW_MAX_ARCS)
		return pgo_error("function too large for the flow solve (%u blocks, %zu arcs)", nr_blocks, nr_arcs);
	if (entry >= nr_blocks || exit >= nr_blocks)
		return pgo_error("flow: entry or exit block out of range");
	for (i = 0; i < nr_arcs; i++)
		if (arcs[i].src >= nr_blocks || arcs[i].dst >= nr_blocks)
			return pgo_error("flow: arc %zu names a block out of range", i);
	n.nr_nodes = 2 * nr_blocks + 2;
	s = n.nr_nodes - 2;
	t = n.nr_nodes - 1;
	max_e = 2 * (5 * (size_t)nr_blocks + nr_arcs + 1);
	n.e = malloc(max_e * sizeof(*n.e));
	n.head = malloc(n.nr_nodes * sizeof(*n.head));
	arc_edge = malloc((nr_arcs + 1) * sizeof(*arc_edge));
	if (!n.e || !n.head || !arc_edge) {
		pgo_error("out of memory (flow over %u blocks)", nr_blocks);
		goto out;
	}
	memset(n.head, 0xff, n.nr_nodes * sizeof(*n.head));
	for (b = 0; b < nr_blocks; b++) {
		uint32_t in = 2 * b, out = 2 * b + 1;
		uint64_t e = blocks[b].estimate;
		int64_t w = blocks[b].weight;

		if (!w) {
			add_edge(&n, in, out, CAP_INF, 0);
			continue;
		}
		if (e > (uint64_t)CAP_INF / 4)
			e = (uint64_t)CAP_INF / 4;
		/* overcount: one unit above the estimate is within a sample's noise */
		if (!blocks[b].over)
			add_edge(&n, in, out, 1, SLACK_COST);
		add_edge(&n, in, out, CAP_INF, blocks[b].over ? blocks[b].over : w);
		if (e) {
			add_edge(&n, out, in, (int64_t)e, w);  /* undercount */
			add_edge(&n, s, out, (int64_t)e, 0);
			add_edge(&n, in, t, (int64_t)e, 0);
		}
	}
	for (i = 0; i < nr_arcs; i++)
		arc_edge[i] = add_edge(&n, 2 * arcs[i].src + 1, 2 * arcs[i].dst, CAP_INF, arcs[i].cost);
	add_edge(&n, 2 * exit + 1, 2 * entry, CAP_INF, 0);
	if (min_cost_flow(&n, s, t) < 0)
		goto out;
	/* an arc's flow is what its residual twin holds */
	for (i = 0; i < nr_arcs; i++)
		flow[i] = (uint64_t)n.e[arc_edge[i] + 1].cap;
	ret = 0;
out:
	free(n.e);
	free(n.head);
	free(arc_edge);
	return ret;
}
