/* SPDX-License-Identifier: MIT */
/*
 * Counts keyed by a pair of u64 (branch from/to, LBR range begin/end, call edges).
 * Internal to convert/. Zero state: PAIRMAP_INIT. Entries are never removed.
 */
#ifndef PGO_CONVERT_PAIRMAP_H
#define PGO_CONVERT_PAIRMAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hashmap.h"

struct pair_ent {
	uint64_t a, b, count;
	size_t next;                   /* index + 1 of the next entry with the same hash */
};

struct pairmap {
	struct pgo_u64map index;       /* hash(a, b) -> index + 1 of the first entry */
	struct pair_ent *e;
	size_t nr, alloc;
};
#define PAIRMAP_INIT { PGO_U64MAP_INIT, NULL, 0, 0 }

/* count(a, b) += c. Returns 0, or -1 on allocation failure (reported). */
int pairmap_add(struct pairmap *m, uint64_t a, uint64_t b, uint64_t c);
void pairmap_release(struct pairmap *m);

#endif
