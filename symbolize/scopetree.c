// SPDX-License-Identifier: MIT
/* A compile unit's code-bearing DIEs as a tree of address ranges (symbolize/scopetree.h). */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dies.h"
#include "symbolize/scopetree.h"
#include "lib/alloc.h"
#include "lib/radixsort.h"

/*
 * The index of a long list (a function body with hundreds of inlined calls, or a few
 * inlined calls scattered over dozens of ranges): every range of its scopes sorted by
 * start, with the largest end so far, so that a lookup is a binary search and a short
 * walk back instead of a scan of the list.
 */
struct symbolize_scope_ix {
	Dwarf_Addr lo, hi, max_hi;    /* max_hi: the largest hi of this and all earlier */
	uint32_t scope;
};

/* ranges in a list that make it long: scanning short lists of many ranges was 4% of
 * sqlite3's convert */
#define SCOPE_INDEX_MIN 8

/* a unit's size (bytes of .debug_info) from which symbolize_scopetree_build sizes its arrays */
#define SCOPE_PRESIZE_MIN (256 << 10)

/* first_child of a top-level scope whose children are not read yet */
#define SCOPE_UNREAD (SYMBOLIZE_SCOPE_NONE - 1)

struct symbolize_scope_range {
	Dwarf_Addr lo, hi;
};

static int is_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block;
}

/*
 * C++ and Fortran put definitions inside these; they have no code of their own. A C
 * unit's structures hold members only (C has no member functions): the walk does not
 * read their members, which were 4% of converting graphviz.
 */
static int is_container(const struct symbolize_scopetree *t, int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       (tag == DW_TAG_structure_type && !t->c_unit) || tag == DW_TAG_module;
}

static int is_c(int lang)
{
	/* 0x2c: DW_LANG_C17 (DWARF 6), which this dwarf.h may not name */
	return lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 || lang == DW_LANG_C11 ||
	       lang == 0x2c;
}

/*
 * One DIE of a list being walked, by libdw (u NULL) or by symbolize/dies.h: its Dwarf_Die
 * for libdw, or what the raw reader read of it, and in that case where its list goes on
 * if its children were walked already (after).
 */
struct kid {
	const struct symbolize_dieunit *u;
	Dwarf_Die die;
	struct symbolize_die d;
	const uint8_t *after;
};

/* The first child of parent into k: 1, 0 if none, -1 if unreadable. */
static int kid_first(struct kid *parent, struct kid *k)
{
	k->u = parent->u;
	k->after = NULL;
	if (!k->u)
		return dwarf_child(&parent->die, &k->die) == 0;
	return parent->d.has_children ? symbolize_die_read(k->u, parent->d.attrs_end, &k->d) : 0;
}

/* The next DIE of k's list: 1, 0 at its end, -1 if unreadable. */
static int kid_next(struct kid *k)
{
	const uint8_t *p;

	if (!k->u)
		return dwarf_siblingof(&k->die, &k->die) == 0;
	p = k->after ? k->after : symbolize_die_skip(k->u, &k->d);
	k->after = NULL;
	return p ? symbolize_die_read(k->u, p, &k->d) : -1;
}

static int kid_tag(struct kid *k)
{
	return k->u ? (int)k->d.tag : dwarf_tag(&k->die);
}

static int add_range(struct symbolize_scopetree *t, Dwarf_Addr lo, Dwarf_Addr hi)
{
	if (hi <= lo)
		return 0;
	if (PGO_ALLOC_GROW_UNINIT(t->ranges, t->nr_ranges + 1, t->alloc_ranges) < 0)
		return -1;
	t->ranges[t->nr_ranges].lo = lo;
	t->ranges[t->nr_ranges].hi = hi;
	t->nr_ranges++;
	return 0;
}

static int add_range_cb(void *arg, uint64_t lo, uint64_t hi)
{
	return add_range(arg, lo, hi);
}

/* Append a scope for k (tag) with its address ranges; SYMBOLIZE_SCOPE_NONE if it has none. */
static int add_scope(struct symbolize_scopetree *t, struct kid *k, int tag, uint32_t *idx)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t o = 0;
	size_t first = t->nr_ranges;
	struct symbolize_scope *s;
	int r;

	*idx = SYMBOLIZE_SCOPE_NONE;
	/*
	 * Declarations and abstract instances have neither: dwarf_hasattr reads only the
	 * abbreviation, where dwarf_ranges decodes the DIE's attributes three times.
	 */
	if (k->u ? !k->d.has_lowpc && !k->d.has_ranges
		 : !dwarf_hasattr(&k->die, DW_AT_low_pc) && !dwarf_hasattr(&k->die, DW_AT_ranges))
		return 0;
	if (k->u && k->d.simple_pc) {
		if (add_range(t, k->d.lo, k->d.hi) < 0)
			return -1;
	} else if (k->u && (r = symbolize_die_ranges(k->u, &k->d, add_range_cb, t)) != 0) {
		if (r < 0)
			return -1;
	} else {
		if (k->u && symbolize_die_libdw(k->u, k->d.p, &k->die) < 0)
			return -1;
		while ((o = dwarf_ranges(&k->die, o, &base, &lo, &hi)) > 0)
			if (add_range(t, lo, hi) < 0)
				return -1;
	}
	if (t->nr_ranges == first)
		return 0;
	if (PGO_ALLOC_GROW_UNINIT(t->scopes, t->nr_scopes + 1, t->alloc_scopes) < 0)
		return -1;
	s = &t->scopes[t->nr_scopes];
	s->addr = k->u ? (void *)(uintptr_t)k->d.p : k->die.addr;
	s->tag = tag;
	s->user = 0;
	s->first_child = s->next = SYMBOLIZE_SCOPE_NONE;
	s->range0 = (uint32_t)first;
	s->nr_ranges = (uint32_t)(t->nr_ranges - first);
	s->ix0 = s->nr_ix = 0;
	*idx = (uint32_t)t->nr_scopes++;
	return 0;
}

static int cmp_ix(const void *a, const void *b)
{
	const struct symbolize_scope_ix *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->scope < y->scope ? -1 : x->scope > y->scope;
}

static int ix_less(const struct symbolize_scope_ix *x, const struct symbolize_scope_ix *y)
{
	return x->lo < y->lo || (x->lo == y->lo && x->scope < y->scope);
}

/*
 * Sort v[0..n) as cmp_ix orders, tmp holding n: a merge sort with the comparison inline,
 * which takes sorted halves as they are. A list's ranges come nearly in address order
 * (DIE order follows the code); qsort through its callback was 2-3% of a convert.
 */
static void sort_ix(struct symbolize_scope_ix *v, struct symbolize_scope_ix *tmp, size_t n)
{
	size_t mid = n / 2, i, j, k;

	if (n <= 16) {
		for (i = 1; i < n; i++) {
			struct symbolize_scope_ix x = v[i];

			for (j = i; j > 0 && ix_less(&x, &v[j - 1]); j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	sort_ix(v, tmp, mid);
	sort_ix(v + mid, tmp, n - mid);
	if (!ix_less(&v[mid], &v[mid - 1]))
		return;
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		tmp[k++] = ix_less(&v[j], &v[i]) ? v[j++] : v[i++];
	while (i < mid)
		tmp[k++] = v[i++];
	memcpy(v, tmp, k * sizeof(*v));
}

/* entries from which a radix sort is cheaper than the merge of nearly sorted ones */
#define SCOPE_RADIX_MIN 256
#define IX_KEY(e) ((e)->lo)
PGO_RADIX_SORT(sort_ix_radix, struct symbolize_scope_ix, uint64_t, IX_KEY)

/* Index the list that starts at head if it is long (by ranges). Returns 0, or -1 when out of memory. */
static int index_list(struct symbolize_scopetree *t, uint32_t head)
{
	size_t n = 0, first = t->nr_ix, k;
	struct symbolize_scope_ix *tmp;
	uint32_t idx, r;

	for (idx = head; idx != SYMBOLIZE_SCOPE_NONE; idx = t->scopes[idx].next)
		n += t->scopes[idx].nr_ranges;
	if (n < SCOPE_INDEX_MIN)
		return 0;
	if (PGO_ALLOC_GROW_UNINIT(t->ix, t->nr_ix + n, t->alloc_ix) < 0)
		return -1;
	for (idx = head; idx != SYMBOLIZE_SCOPE_NONE; idx = t->scopes[idx].next) {
		const struct symbolize_scope *s = &t->scopes[idx];

		for (r = 0; r < s->nr_ranges; r++) {
			t->ix[t->nr_ix].lo = t->ranges[s->range0 + r].lo;
			t->ix[t->nr_ix].hi = t->ranges[s->range0 + r].hi;
			t->ix[t->nr_ix].scope = idx;
			t->nr_ix++;
		}
	}
	/*
	 * Entries come in scope order: a stable sort by start is cmp_ix's order. A long
	 * list's ranges are far from address order (a unit's functions: hot and cold parts,
	 * .text.startup), where the merge sort was 4% of sqlite3's convert. Out of memory
	 * for the merge, qsort sorts in place.
	 */
	n = t->nr_ix - first;
	if (n >= SCOPE_RADIX_MIN) {
		sort_ix_radix(t->ix + first, n);
	} else if ((tmp = malloc(n * sizeof(*tmp)))) {
		sort_ix(t->ix + first, tmp, n);
		free(tmp);
	} else {
		qsort(t->ix + first, n, sizeof(*t->ix), cmp_ix);
	}
	for (k = first; k < t->nr_ix; k++)
		t->ix[k].max_hi = k > first && t->ix[k - 1].max_hi > t->ix[k].hi ? t->ix[k - 1].max_hi
										 : t->ix[k].hi;
	t->scopes[head].ix0 = (uint32_t)first;
	t->scopes[head].nr_ix = (uint32_t)(t->nr_ix - first);
	return 0;
}

/*
 * Append the scopes under parent to the list whose last element is *tail (or that
 * starts at *head when empty). Indices, not pointers: t->scopes moves as it grows.
 * With `lazy` (the CU's level) the children of the scopes found are left unread.
 * The lists below parent are indexed; the caller indexes the one it gets. Read by the
 * raw reader, *after is where parent's list goes on past its children. Returns 0, -1
 * when out of memory, -2 if the raw reader cannot go on.
 */
static int build_children(struct symbolize_scopetree *t, struct kid *parent, int depth, int lazy,
			  uint32_t *head, uint32_t *tail, const uint8_t **after)
{
	struct kid child;
	int r;

	if (depth <= 0 || (r = kid_first(parent, &child)) == 0)
		return 0;
	for (; r > 0; r = kid_next(&child)) {
		int tag = kid_tag(&child), err;
		uint32_t idx, ch = SYMBOLIZE_SCOPE_NONE, ct = SYMBOLIZE_SCOPE_NONE;

		if (is_container(t, tag)) {
			if ((err = build_children(t, &child, depth, lazy, head, tail, &child.after)) < 0)
				return err;
			continue;
		}
		if (!is_scope(tag))
			continue;
		if (add_scope(t, &child, tag, &idx) < 0)
			return child.u ? -2 : -1;
		if (idx == SYMBOLIZE_SCOPE_NONE)
			continue;
		if (*tail == SYMBOLIZE_SCOPE_NONE)
			*head = idx;
		else
			t->scopes[*tail].next = idx;
		*tail = idx;
		if (lazy) {
			t->scopes[idx].first_child = depth > 1 ? SCOPE_UNREAD : SYMBOLIZE_SCOPE_NONE;
			continue;
		}
		if ((err = build_children(t, &child, depth - 1, 0, &ch, &ct, &child.after)) < 0 ||
		    (err = index_list(t, ch)) < 0)
			return err;
		t->scopes[idx].first_child = ch;
	}
	if (r < 0)
		return -2;
	/* the null entry that ended the list was read last: parent's next DIE follows it */
	if (child.u)
		*after = child.d.attrs_end;
	return 0;
}

/*
 * build_children below die (the unit's DIE, or a top-level scope's), by the raw reader
 * where the unit has one; where it cannot go on, what it added is taken back and libdw
 * reads the same DIEs.
 */
static int build_below(struct symbolize_scopetree *t, Dwarf_Die *die, int depth, int lazy, uint32_t *head,
		       uint32_t *tail)
{
	size_t nr_scopes = t->nr_scopes, nr_ranges = t->nr_ranges, nr_ix = t->nr_ix;
	uint32_t old_head = *head, old_tail = *tail;
	const uint8_t *after = NULL, *p;
	struct kid parent;
	int err;

	parent.u = NULL;
	parent.die = *die;
	if (t->unit) {
		p = symbolize_die_pos(t->unit, dwarf_dieoffset(die));
		if (p && symbolize_die_read(t->unit, p, &parent.d) > 0) {
			parent.u = t->unit;
			err = build_children(t, &parent, depth, lazy, head, tail, &after);
			if (err != -2)
				return err;
			t->nr_scopes = nr_scopes;
			t->nr_ranges = nr_ranges;
			t->nr_ix = nr_ix;
			*head = old_head;
			*tail = old_tail;
			if (old_tail != SYMBOLIZE_SCOPE_NONE)
				t->scopes[old_tail].next = SYMBOLIZE_SCOPE_NONE;
			parent.u = NULL;
		}
		t->libdw_reads++;
	}
	return build_children(t, &parent, depth, lazy, head, tail, &after);
}

int symbolize_scopetree_build(struct symbolize_scopetree *t, Dwarf_Die *cudie, const struct symbolize_dwsecs *secs,
			    int max_depth)
{
	uint32_t tail = SYMBOLIZE_SCOPE_NONE;

	memset(t, 0, sizeof(*t));
	t->root = t->last_top = SYMBOLIZE_SCOPE_NONE;
	t->max_depth = max_depth;
	t->c_unit = is_c(dwarf_srclang(cudie));
	t->cu = cudie->cu;
	if (secs && (t->unit = malloc(sizeof(*t->unit))) &&
	    symbolize_dieunit_open(t->unit, secs, cudie) < 0) {
		free(t->unit);
		t->unit = NULL;
	}
	/*
	 * A large unit's arrays grow to a few hundred KB: sized from the start (a scope and
	 * a range or two per ~256 bytes of DIEs in sqlite3's 1.3 MB unit), they are not
	 * copied as they grow into new pages (2% of a short recording's page faults). Small
	 * units' arrays are not: their pages are shared with other allocations.
	 */
	if (t->unit && (size_t)(t->unit->end - (t->unit->info + t->unit->unit_off)) >= SCOPE_PRESIZE_MIN) {
		size_t n = (size_t)(t->unit->end - (t->unit->info + t->unit->unit_off)) / 256;

		if (PGO_ALLOC_GROW_UNINIT(t->scopes, n, t->alloc_scopes) < 0 ||
		    PGO_ALLOC_GROW_UNINIT(t->ranges, n, t->alloc_ranges) < 0 ||
		    PGO_ALLOC_GROW_UNINIT(t->ix, n, t->alloc_ix) < 0) {
			symbolize_scopetree_release(t);
			return -1;
		}
	}
	if (build_below(t, cudie, max_depth, 1, &t->root, &tail) < 0 || index_list(t, t->root) < 0) {
		symbolize_scopetree_release(t);
		return -1;
	}
	return 0;
}

/*
 * Whether scope idx contains pc; also lower *bound to the first boundary above pc of its
 * ranges (a start or an end). One pass for both: lookups in short lists were 5% of a
 * convert of sqlite3, half of it the second walk over the same ranges.
 */
static int scope_hit(const struct symbolize_scopetree *t, uint32_t idx, Dwarf_Addr pc, Dwarf_Addr *bound)
{
	const struct symbolize_scope *s = &t->scopes[idx];
	const struct symbolize_scope_range *r = &t->ranges[s->range0], *end = r + s->nr_ranges;
	Dwarf_Addr b = *bound;
	int hit = 0;

	for (; r < end; r++) {
		if (r->lo > pc) {
			if (r->lo < b)
				b = r->lo;
		} else if (r->hi > pc) {
			hit = 1;
			if (r->hi < b)
				b = r->hi;
		}
	}
	*bound = b;
	return hit;
}

/*
 * The first scope (in DIE order) of the list at idx that contains pc; also lower *bound to
 * the first boundary above pc of the list's ranges: up to there, every scope of the list
 * contains the addresses that pc's scopes contain, and only those.
 */
static uint32_t find_in(const struct symbolize_scopetree *t, uint32_t idx, Dwarf_Addr pc, Dwarf_Addr *bound)
{
	const struct symbolize_scope_ix *ix;
	uint32_t best = SYMBOLIZE_SCOPE_NONE;
	size_t lo, hi;

	if (idx == SYMBOLIZE_SCOPE_NONE)
		return idx;
	if (!t->scopes[idx].nr_ix) {
		for (; idx != SYMBOLIZE_SCOPE_NONE; idx = t->scopes[idx].next)
			if (scope_hit(t, idx, pc, bound) && best == SYMBOLIZE_SCOPE_NONE)
				best = idx;
		return best;
	}
	/* a list's scopes were appended in DIE order: the first is the smallest index */
	ix = t->ix + t->scopes[idx].ix0;
	lo = 0;
	hi = t->scopes[idx].nr_ix;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->scopes[idx].nr_ix && ix[lo].lo < *bound)
		*bound = ix[lo].lo;
	/* every range with lo <= pc < hi is at or after the last max_hi <= pc */
	while (lo > 0 && ix[lo - 1].max_hi > pc) {
		lo--;
		if (pc < ix[lo].hi) {
			if (ix[lo].scope < best)
				best = ix[lo].scope;
			if (ix[lo].hi < *bound)
				*bound = ix[lo].hi;
		}
	}
	return best;
}

/*
 * Scope idx's DIE as libdw makes it (dwarf_offdie, dwarf_child: its address and unit,
 * nothing read yet). A scope's DIE is in the tree's unit, read by libdw or not.
 */
static void scope_die(const struct symbolize_scopetree *t, uint32_t idx, Dwarf_Die *out)
{
	memset(out, 0, sizeof(*out));
	out->addr = t->scopes[idx].addr;
	out->cu = t->cu;
}

/* The chain of pc into ids or dies (either may be NULL). */
static int chain(struct symbolize_scopetree *t, Dwarf_Addr pc, uint32_t *ids, Dwarf_Die *dies, int max,
		 Dwarf_Addr *end)
{
	uint32_t idx = SYMBOLIZE_SCOPE_NONE;
	int n = 0;

	*end = UINT64_MAX;
	if (max <= 0)
		return 0;
	/*
	 * Consecutive lookups mostly fall in one function: try its top-level scope first.
	 * Top-level functions do not overlap (only broken DWARF has two claim one pc), so
	 * this gives the DIE-order answer without scanning all of a large CU's functions,
	 * and the end of its range is the top level's next boundary. (A miss lowers *end
	 * by that scope's boundaries, which the search of its list lowers it by anyway.)
	 */
	if (t->last_top != SYMBOLIZE_SCOPE_NONE && scope_hit(t, t->last_top, pc, end))
		idx = t->last_top;
	else
		idx = find_in(t, t->root, pc, end);
	if (idx == SYMBOLIZE_SCOPE_NONE)
		return 0;
	t->last_top = idx;
	if (t->scopes[idx].first_child == SCOPE_UNREAD) {
		Dwarf_Die die;
		uint32_t ch = SYMBOLIZE_SCOPE_NONE, ct = SYMBOLIZE_SCOPE_NONE;

		scope_die(t, idx, &die);
		/* a failure leaves it unread: the next lookup tries again */
		if (build_below(t, &die, t->max_depth - 1, 0, &ch, &ct) < 0 || index_list(t, ch) < 0)
			return -1;
		t->scopes[idx].first_child = ch;
	}
	while (idx != SYMBOLIZE_SCOPE_NONE && n < max) {
		if (ids)
			ids[n] = idx;
		if (dies)
			scope_die(t, idx, &dies[n]);
		n++;
		if (n < max)
			idx = find_in(t, t->scopes[idx].first_child, pc, end);
	}
	return n;
}

int symbolize_scopetree_chain(struct symbolize_scopetree *t, Dwarf_Addr pc, Dwarf_Die *out, int max,
			    Dwarf_Addr *end)
{
	return chain(t, pc, NULL, out, max, end);
}

int symbolize_scopetree_chain_ids(struct symbolize_scopetree *t, Dwarf_Addr pc, uint32_t *ids, int max,
				Dwarf_Addr *end)
{
	return chain(t, pc, ids, NULL, max, end);
}

void symbolize_scopetree_die(const struct symbolize_scopetree *t, uint32_t id, Dwarf_Die *out)
{
	scope_die(t, id, out);
}

void symbolize_scopetree_release(struct symbolize_scopetree *t)
{
	if (t->unit)
		symbolize_dieunit_release(t->unit);
	free(t->unit);
	free(t->scopes);
	free(t->ranges);
	free(t->ix);
	memset(t, 0, sizeof(*t));
	t->root = t->last_top = SYMBOLIZE_SCOPE_NONE;
}
