/* SPDX-License-Identifier: MIT */
#ifndef CONVERT_SCOPETREE_H
#define CONVERT_SCOPETREE_H

/*
 * The physical nesting of one compile unit's code-bearing DIEs (subprograms, inlined
 * subroutines, lexical blocks), read once and kept as a tree of address ranges.
 *
 * Walking the DIEs for every address (dwarf_child/dwarf_siblingof/dwarf_haspc) decodes
 * the same abbreviations and range lists again and again: converting a profile resolves
 * every line address of every sampled function, and that walk was two thirds of
 * `pgo convert`'s time. The tree answers the same question from plain arrays.
 *
 * dwarf_getscopes() is not a substitute: past an inlined_subroutine it follows the
 * abstract origin's scopes, not the function the code was inlined into.
 */
#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

struct symbolize_scope_range;
struct symbolize_scope_ix;
struct symbolize_dieunit;
struct symbolize_dwsecs;

struct symbolize_scopetree {
	struct symbolize_scope *scopes;
	size_t nr_scopes, alloc_scopes;
	struct symbolize_scope_range *ranges;
	size_t nr_ranges, alloc_ranges;
	struct symbolize_scope_ix *ix;   /* indexes of long lists */
	size_t nr_ix, alloc_ix;
	uint32_t root;                 /* first top-level scope, or SYMBOLIZE_SCOPE_NONE */
	uint32_t last_top;             /* top-level scope of the previous hit */
	int max_depth;
	int c_unit;                    /* DW_AT_language is C's: structures hold no code */
	Dwarf_CU *cu;                  /* libdw's unit of every scope's DIE */
	struct symbolize_dieunit *unit;  /* the unit's DIEs read directly (symbolize/dies.h), or NULL */
	size_t libdw_reads;            /* of the DIE lists read with a unit, those left to libdw */
};

#define SYMBOLIZE_SCOPE_NONE UINT32_MAX

/*
 * Read the top-level scopes under cudie (descending into namespaces, classes and
 * structures, which hold definitions but no code; a C unit's structures hold neither). DIEs without addresses (declarations, abstract
 * instances) are left out. What is below a top-level scope (at most max_depth levels in
 * all) is read on the first lookup that falls in it: a profile touches a few of a CU's
 * functions, and reading every function's inlined subroutines and blocks was most of the
 * cost of a short recording. With secs (the sections libdw reads, symbolize_dwsecs_get), the
 * DIEs are read by symbolize/dies.h wherever it can read them, else by libdw; the trees are
 * the same (tests/unit/symbolize-scopetree.c). Returns 0, or -1 when out of memory.
 */
int symbolize_scopetree_build(struct symbolize_scopetree *t, Dwarf_Die *cudie, const struct symbolize_dwsecs *secs,
			    int max_depth);

/*
 * The scopes that contain pc (a DWARF address), outermost first, into chain[0..max).
 * At each level the first scope in DIE order that contains pc is taken, as a walk of
 * the DIEs would. *end receives how far the answer holds: the chain is pc's for every
 * address in [pc, *end), the first boundary of a scope range (start or end) above pc
 * among the lists looked at, so a walk of addresses in order needs a new chain only where
 * *end is passed. Returns the number of entries, or -1 when out of memory.
 */
int symbolize_scopetree_chain(struct symbolize_scopetree *t, Dwarf_Addr pc, Dwarf_Die *chain,
			    int max, Dwarf_Addr *end);

/*
 * The same chain as indices of the tree's scopes (valid until the tree is released), for
 * the functions below: the tag and a slot of the caller's come with each scope, where
 * asking libdw for a DIE's tag and looking a DIE up in a hash table per chain were 3% of
 * a convert.
 */
int symbolize_scopetree_chain_ids(struct symbolize_scopetree *t, Dwarf_Addr pc, uint32_t *ids,
				int max, Dwarf_Addr *end);

/* Scope id's DIE into *out, as dwarf_offdie would make it. */
void symbolize_scopetree_die(const struct symbolize_scopetree *t, uint32_t id, Dwarf_Die *out);

/*
 * A scope, scopetree.c's to fill: here for the accessors below, inline (calls for every
 * frame of every chain were 0.4% of a convert). 40 bytes: its DIE is its address in the
 * unit's data (the Dwarf_Die, 32 bytes, made again when asked for); the array of sqlite3's
 * unit was a tenth of a short recording's page faults at 64 bytes a scope.
 */
struct symbolize_scope {
	void *addr;                   /* its DIE's (Dwarf_Die.addr) in the tree's unit */
	int tag;
	uint32_t user;                /* the caller's (symbolize_scopetree_user) */
	uint32_t first_child, next;   /* DIE order; SYMBOLIZE_SCOPE_NONE ends a list */
	uint32_t range0, nr_ranges;
	uint32_t ix0, nr_ix;          /* first scope of a list: the list's index, if any */
};

static inline int symbolize_scopetree_tag(const struct symbolize_scopetree *t, uint32_t id)
{
	return t->scopes[id].tag;
}

/* A value the caller keeps with scope id, 0 when the tree is built. */
static inline uint32_t *symbolize_scopetree_user(struct symbolize_scopetree *t, uint32_t id)
{
	return &t->scopes[id].user;
}

void symbolize_scopetree_release(struct symbolize_scopetree *t);

#endif
