// SPDX-License-Identifier: MIT
/*
 * The addresses a sample profile counts (in address order, and the explicit zeros),
 * the entry counts of functions and instances, and the offline copies of instances gcc
 * 12 needs to inline them again.
 */

#include <stdlib.h>

#include "convert/sampleprof_internal.h"
#include "lib/alloc.h"
#include "lib/radixsort.h"
#include "lib/report.h"

/* the per-address counts by address: unique keys, lib/radixsort.h's stable sort */
#define SLOT_KEY(e) ((e)->key)

PGO_RADIX_SORT(sort_slots, struct pgo_u64map_slot, uint64_t, SLOT_KEY)

/* Per-address counts in address order, so consecutive lookups share the symbolizer's caches. */
int sp_add_counts_sorted(struct builder *B)
{
	struct convert_binary *b = B->bin;
	struct pgo_u64map_slot *v;
	size_t i, n = 0;
	int err = -1;

	v = pgo_calloc(b->counts.count ? b->counts.count : 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < b->counts.cap; i++)
		if (b->counts.slots[i].used)
			v[n++] = b->counts.slots[i];
	if (n > 1)
		sort_slots(v, n);
	for (i = 0; i < n; i++) {
		struct symbolize_sym sym;
		struct sp_fn *top;

		if (sp_add_count(B, v[i].key, v[i].value, &top) < 0)
			goto out;
		sym = symbolize_symtab_lookup(b->st, v[i].key);
		if (top && sym.sym_size && pgo_u64map_put(&B->sampled, sym.sym_start, sym.sym_size) < 0)
			goto out;
	}
	err = 0;
out:
	free(v);
	return err;
}

static void want_pairs(const struct pairmap *m, uint64_t *v, size_t *n)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		/* a call edge's a is a return address: its caller is looked up at a - 1 */
		v[(*n)++] = m->e[i].a;
		v[(*n)++] = m->e[i].a - (m->e[i].a > 0);
		v[(*n)++] = m->e[i].b;
	}
}

/*
 * Tell the symbolizer which functions will be looked up: every sampled address and both
 * ends of every branch, range and call edge. A one-unit program (sqlite3) then keeps the
 * line-table rows of those functions only (symbolize_symtab_want).
 */
int sp_want_addrs(struct builder *B)
{
	const struct convert_binary *b = B->bin;
	const struct pairmap *pm[] = { &b->branches, &b->ranges, &b->calls, &b->ucalls,
				       &b->leaf_calls, &b->leaf_ucalls };
	size_t i, n = b->counts.count, k = 0;
	uint64_t *v;
	int err;

	for (i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
		n += 3 * pm[i]->nr;
	if (!(v = malloc((n ? n : 1) * sizeof(*v))))
		return pgo_error("out of memory");
	for (i = 0; i < b->counts.cap; i++)
		if (b->counts.slots[i].used)
			v[k++] = b->counts.slots[i].key;
	for (i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
		want_pairs(pm[i], v, &k);
	err = symbolize_symtab_want(b->st, v, k);
	free(v);
	return err;
}

struct entry_max {
	struct builder *B;
	struct sp_fn *top;
	uint64_t max;
};

static int entry_line(const struct symbolize_sym *sym, void *data)
{
	struct entry_max *m = data;
	uint64_t c = sp_count_of(m->B, m->top, sym);

	if (c > m->max)
		m->max = c;
	return 0;
}

/*
 * The largest count among the lines of the function's entry block (entryblock.h); 0 if
 * unknown. The block's lines are those of the line-table rows that begin in it (the first
 * at the entry): instructions between rows have the line of the row before.
 */
static int entry_block_max(struct builder *B, struct symbolize_entryblock *eb, struct sp_fn *top,
			   uint64_t start, uint64_t size, uint64_t *max)
{
	uint64_t insns[ENTRY_INSNS_MAX];
	size_t n = symbolize_entryblock_insns(eb, start, size, insns, ENTRY_INSNS_MAX);
	struct entry_max m = { B, top, 0 };

	if (!n || symbolize_symtab_foreach_line(B->bin->st, start, insns[n - 1] + 1 - start, entry_line, &m))
		return -1;
	*max = m.max;
	return 0;
}

uint64_t sp_entry_block_count(struct builder *B, struct symbolize_entryblock *eb, struct sp_fn *top,
			      uint64_t start, uint64_t size)
{
	uint64_t max;

	return entry_block_max(B, eb, top, start, size, &max) < 0 ? 0 : max;
}

/*
 * How often instance c of record top was entered: its sampled inlined copies' entry
 * blocks (from DW_AT_entry_pc, as a function's head from its entry), each the largest
 * count of its lines, summed; at least 1. 0 if any copy's entry or block is unknown.
 */
static uint64_t instance_entry(struct builder *B, struct symbolize_entryblock *eb, struct sp_fn *top,
			       const struct sp_fn *c)
{
	uint64_t sum = 0, max;
	size_t i;

	if (!eb || !c->nr_entries)
		return 0;
	for (i = 0; i < c->nr_entries; i++) {
		uint64_t e = c->entries[i];
		struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, e);

		/* the copy's counts are in top only if its entry is in top's symbol */
		if (sym.sym_name != top->name || e - sym.sym_start >= sym.sym_size ||
		    entry_block_max(B, eb, top, e, sym.sym_start + sym.sym_size - e, &max) < 0)
			return 0;
		sum += max;
	}
	return sum ? sum : 1;
}

/*
 * Offlining. gcc 12 compiles a function before its callers, and its early inliner asks the
 * function's own record which callees to inline; its AutoFDO pass then inlines into each
 * record's function the instances one level down, and annotates. So an instance's own
 * inlined callees (Pshortestpath -> triangulate -> isdiagonal -> intersects -> ccw in
 * graphviz) are lost when their caller has no record, as when the binary kept no
 * out-of-line copy: the callee stays a call, counted by a call line whose instructions
 * went to the instance, and is taken for cold. And with LTO, gcc reads the profile while
 * compiling each unit, before the link-time inliner: an instance of b.c's work() inlined
 * into a.c's main() is looked for in main's record when a.c is compiled, where work cannot
 * be inlined, and work's body in b.c finds no record.
 * Each instance of a function compiled in another unit than its caller's, and each
 * instance with inlined callees of its own (SP_OFFLINE_NESTED; with SP_OFFLINE_INLINED
 * only those of functions the binary has no out-of-line copy of), is therefore also added
 * into its function's top-level record (created if missing), with its entry count
 * (instance_entry; its largest line count where that is unknown) added to the head, and
 * that count is given to the call line in the caller. Not for instances
 * copied from call stacks (the callee's own samples already), nor into a function on its
 * own inline path (recursion). gcc 15's reader offlines instances itself.
 * A function the training binary also kept out of line, unsampled there, was compiled on
 * its own as a plain function: offlining all nested instances (SP_OFFLINE_NESTED) gave
 * such small helpers records, their standalone bodies then inlined, regardless of size,
 * every callee any of their instances inlined, and mujs's build is 2.5-8.5% slower
 * (docs/decisions-convert.md). SP_OFFLINE_INLINED leaves them alone: graphviz 0.7-2.1%
 * faster, mujs, recsort, jq and sigscheme within +-1%.
 */
struct offl_site {
	struct sp_fn *inst, *caller; /* the instance, and the record it is inlined in */
	uint32_t at;                 /* its call-site offset there */
	uint64_t entry;              /* its entry count, at least 1 */
};

struct offl {
	struct builder *B;
	struct symbolize_entryblock *eb;
	struct sp_fn *top;           /* the top-level record walked */
	struct offl_site *v;
	size_t nr, alloc;
	uint32_t path[64];           /* names from the top-level record down */
	int depth;
	int nested;                  /* SP_OFFLINE_NESTED or SP_OFFLINE_INLINED */
	uint64_t *copies;            /* SP_OFFLINE_INLINED: the functions the binary has an
					out-of-line copy of (base names of its symbols), a bit
					per name id: ids are dense, and a pgo_u64map_get per
					symbol was 0.8-1% of a convert (sqlite3: 1456) */
	size_t alloc_copies;         /* words */
};

static int has_copy(const struct offl *o, uint32_t name)
{
	return name / 64 < o->alloc_copies && (o->copies[name / 64] >> (name % 64) & 1);
}

/* f has sampled instances of its own, inlined in the binary (not copied from stacks) */
int sp_inlines(const struct sp_fn *f)
{
	size_t i;

	for (i = 0; i < f->nr_cs; i++)
		if (!f->cs[i].fn->from_stacks && f->cs[i].fn->total)
			return 1;
	return 0;
}

static int find_offline(struct offl *o, struct sp_fn *f)
{
	size_t i, k;
	int d;

	if (o->depth == (int)(sizeof(o->path) / sizeof(o->path[0])))
		return 0;
	o->path[o->depth++] = f->name;
	for (i = 0; i < f->nr_cs; i++) {
		struct sp_fn *c = f->cs[i].fn;
		struct offl_site *site;
		int on_path = 0;

		if (c->from_stacks)
			continue;
		for (d = 0; d < o->depth; d++)
			on_path |= o->path[d] == c->name;
		if (c->total && !on_path &&
		    (sp_units_differ(f->unit, c->unit) ||
		     (o->nested && sp_inlines(c) && !has_copy(o, c->name)))) {
			if (PGO_ALLOC_GROW_UNINIT(o->v, o->nr + 1, o->alloc) < 0)
				return -1;
			site = &o->v[o->nr++];
			site->inst = c;
			site->caller = f;
			site->at = f->cs[i].offset;
			/* read before any call line below is raised */
			site->entry = instance_entry(o->B, o->eb, o->top, c);
			for (k = 0; !site->entry && k < c->nr_pos; k++)
				if (c->pos[k].count > site->entry)
					site->entry = c->pos[k].count;
			if (!site->entry)
				site->entry = 1;
		}
		if (find_offline(o, c) < 0)
			return -1;
	}
	o->depth--;
	return 0;
}

static int add_copy(uint32_t name, void *data)
{
	struct offl *o = data;
	uint32_t id = sp_base_name_id(o->B, name);

	if (PGO_ALLOC_GROW(o->copies, id / 64 + 1, o->alloc_copies) < 0)
		return -1;
	o->copies[id / 64] |= (uint64_t)1 << (id % 64);
	return 0;
}

int sp_offline_instances(struct builder *B, struct symbolize_entryblock *eb)
{
	struct offl o = { .B = B, .eb = eb,
			  .nested = !!(B->sp->flags & (SP_OFFLINE_NESTED | SP_OFFLINE_INLINED)) };
	size_t i, n = B->sp->nr_fns;
	int err = -1;

	if ((B->sp->flags & (SP_OFFLINE_NESTED | SP_OFFLINE_INLINED)) == SP_OFFLINE_INLINED &&
	    symbolize_symtab_foreach_function(B->bin->st, add_copy, &o) < 0)
		goto out;

	for (i = B->first; i < n; i++) {
		o.top = B->sp->fns[i];
		if (find_offline(&o, B->sp->fns[i]) < 0)
			goto out;
	}
	/*
	 * The call line in the caller counts the calls: compiling the caller's unit, gcc
	 * counts the call's block by it, and the link-time inliner takes an edge counted 0
	 * (the call's instructions went to the instance) for cold. First, so that the copies
	 * below carry the call lines of the instances nested in them.
	 */
	for (i = 0; i < o.nr; i++) {
		struct sp_pos *pos = sp_pos_get(B->sp, o.v[i].caller, o.v[i].at);

		if (!pos)
			goto out;
		if (pos->count < o.v[i].entry)
			pos->count = o.v[i].entry;
	}
	for (i = 0; i < o.nr; i++) {
		struct sp_fn *c = o.v[i].inst, *top, *copy = sp_fn_new(B->sp, c->name);
		int created;

		/* a copy first: c may lie inside the record it is added to */
		if (!copy || sp_merge_fn(B->sp, copy, c) < 0) {
			sp_fn_free(B->sp, copy);
			goto out;
		}
		created = !pgo_u64map_find(&B->by_name, c->name);
		if (top_get(B, c->name, &top) < 0 || sp_merge_fn(B->sp, top, copy) < 0) {
			sp_fn_free(B->sp, copy);
			goto out;
		}
		sp_fn_free(B->sp, copy);
		if (created)
			top->unit = c->unit;
		top->head += o.v[i].entry;
	}
	err = 0;
out:
	free(o.v);
	free(o.copies);
	return err;
}
