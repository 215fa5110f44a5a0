// SPDX-License-Identifier: MIT
/* Pair-keyed counts (convert/pairmap.h): a u64 map of hashes with collision chains. */
#include <stdlib.h>

#include "convert/pairmap.h"
#include "lib/alloc.h"

int pairmap_add(struct pairmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t key[2] = { a, b }, h = pgo_hash_bytes(key, sizeof(key)), *slot;
	int ret = pgo_u64map_get(&m->index, h, &slot);
	size_t i;

	if (ret < 0)
		return -1;
	for (i = ret ? 0 : *slot; i; i = m->e[i - 1].next) {
		if (m->e[i - 1].a == a && m->e[i - 1].b == b) {
			m->e[i - 1].count += c;
			return 0;
		}
	}
	if (PGO_ALLOC_GROW(m->e, m->nr + 1, m->alloc) < 0)
		return -1;
	m->e[m->nr].a = a;
	m->e[m->nr].b = b;
	m->e[m->nr].count = c;
	m->e[m->nr].next = ret ? 0 : *slot;
	*slot = ++m->nr;
	return 0;
}

void pairmap_release(struct pairmap *m)
{
	pgo_u64map_release(&m->index);
	free(m->e);
	m->e = NULL;
	m->nr = m->alloc = 0;
}
