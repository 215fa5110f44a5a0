/* SPDX-License-Identifier: MIT */
/*
 * Arrays shared copy-on-write: a parent process's mappings, inherited by each child it
 * forks, are one array until one of them changes. Copying per holder instead lets an input
 * with M entries and F holders cost M x F.
 *
 * struct pgo_cow is a reference-counted block of `nr` elements (capacity `alloc`); NULL
 * is the empty array. A holder owns one reference: pgo_cow_share() takes another,
 * pgo_cow_release() drops one (the last frees the block). Before writing, a holder calls
 * pgo_cow_own(), which copies the block if anyone else holds it.
 *
 * Copies still happen once per holder that writes (a child that maps one more file), so
 * the blocks of one kind can share a budget: a cap on their elements in all, for inputs
 * that could otherwise make M x F of them.
 */
#ifndef PGO_LIB_COW_H
#define PGO_LIB_COW_H

#include <stddef.h>

struct pgo_cow_budget {
	size_t used, max;              /* elements allocated in blocks charged to it, cap */
};

struct pgo_cow {
	size_t refs, nr, alloc;
	struct pgo_cow_budget *budget; /* charged with alloc, or NULL */
	_Alignas(max_align_t) unsigned char data[]; /* elements of any type */
};

/* The elements, as type (borrowed; valid until the block changes hands or grows). */
#define PGO_COW_ELEMS(a, type) ((type *)(void *)(a)->data)

static inline size_t pgo_cow_nr(const struct pgo_cow *a)
{
	return a ? a->nr : 0;
}

/* Another reference to a (NULL stays NULL). */
struct pgo_cow *pgo_cow_share(struct pgo_cow *a);
/* Drop the reference in *a (NULL is fine) and set *a to NULL. */
void pgo_cow_release(struct pgo_cow **a);
/*
 * Make *a this holder's own, with room for `need` elements of `size` bytes: a copy if the
 * block is shared or too small, a new block if *a is NULL, charged to budget (may be NULL).
 * Returns 0; -1 on allocation failure (reported); -2 if the new block would take budget
 * over its max (not reported: the caller says what the cap means; *a is unchanged).
 */
int pgo_cow_own(struct pgo_cow **a, size_t need, size_t size, struct pgo_cow_budget *budget);

#endif
