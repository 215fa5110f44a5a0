// SPDX-License-Identifier: MIT
/* Open-addressing u64 map and string interning over xxHash. */
#include <stdlib.h>
#include <string.h>
/*
 * xxhash.h's inline mode: the library's own code, compiled here, so that hashing a u64 key is
 * specialised for its 8 bytes instead of a call through the PLT into the length dispatch
 * (3% of a small convert's instructions).
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "lib/alloc.h"
#include "lib/hashmap.h"
#include "lib/report.h"

uint64_t pgo_hash_bytes(const void *data, size_t len)
{
	return XXH3_64bits(data, len);
}

static size_t slot_of(uint64_t key, size_t cap)
{
	/* keys are often addresses or hashes; mix them so low bits are not clustered */
	return (size_t)(XXH3_64bits(&key, sizeof(key)) & (cap - 1));
}

uint64_t *pgo_u64map_find(const struct pgo_u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct pgo_u64map_slot *s = &m->slots[i];

		if (!s->used)
			return NULL;
		if (s->key == key)
			return &s->value;
	}
}

static int rehash(struct pgo_u64map *m, size_t cap)
{
	struct pgo_u64map_slot *old = m->slots, *slots;
	size_t oldcap = m->cap, i;

	slots = pgo_calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = slot_of(old[i].key, cap); slots[j].used; j = (j + 1) & (cap - 1))
			;
		slots[j] = old[i];
	}
	free(old);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int pgo_u64map_get(struct pgo_u64map *m, uint64_t key, uint64_t **value)
{
	size_t i;

	if ((m->count + 1) * 4 > m->cap * 3 && rehash(m, m->cap ? m->cap * 2 : 64))
		return -1;
	for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct pgo_u64map_slot *s = &m->slots[i];

		if (!s->used) {
			s->used = 1;
			s->key = key;
			s->value = 0;
			m->count++;
			*value = &s->value;
			return 1;
		}
		if (s->key == key) {
			*value = &s->value;
			return 0;
		}
	}
}

int pgo_u64map_put(struct pgo_u64map *m, uint64_t key, uint64_t value)
{
	uint64_t *v;

	if (pgo_u64map_get(m, key, &v) < 0)
		return -1;
	*v = value;
	return 0;
}

void pgo_u64map_release(struct pgo_u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

static long find_len(const struct pgo_strtab *t, const char *s, size_t len, uint64_t h)
{
	size_t i;

	if (!t->cap)
		return -1;
	for (i = (size_t)h & (t->cap - 1); t->slots[i].id; i = (i + 1) & (t->cap - 1)) {
		const char *c;

		if (t->slots[i].hash != (uint32_t)h)
			continue;
		c = t->strs[t->slots[i].id - 1];
		/* strnlen: c may be shorter than len (s with a NUL inside), and c[len] past it */
		if (!strncmp(c, s, len) && strnlen(c, len + 1) == len)
			return (long)t->slots[i].id - 1;
	}
	return -1;
}

static int strtab_rehash(struct pgo_strtab *t, size_t cap)
{
	struct pgo_strtab_slot *slots = pgo_calloc(cap, sizeof(*slots));
	size_t i, j;

	if (!slots)
		return -1;
	for (i = 0; i < t->cap; i++) {
		if (!t->slots[i].id)
			continue;
		for (j = t->slots[i].hash & (cap - 1); slots[j].id; j = (j + 1) & (cap - 1))
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* A copy of s's first n bytes (n without a NUL among them), NUL-terminated, in t's chunks. */
static char *strtab_copy(struct pgo_strtab *t, const char *s, size_t n)
{
	char *c;

	if (t->room_len < n + 1) {
		size_t size = n + 1 > 32768 ? n + 1 : 32768;

		if (PGO_ALLOC_GROW_UNINIT(t->chunks, t->nr_chunks + 1, t->alloc_chunks))
			return NULL;
		if (!(c = malloc(size))) {
			pgo_error("out of memory (%zu bytes)", size);
			return NULL;
		}
		t->chunks[t->nr_chunks++] = c;
		t->room = c;
		t->room_len = size;
	}
	c = t->room;
	memcpy(c, s, n);
	c[n] = '\0';
	t->room += n + 1;
	t->room_len -= n + 1;
	return c;
}

long pgo_strtab_intern_len(struct pgo_strtab *t, const char *s, size_t len)
{
	uint64_t h = pgo_hash_bytes(s, len);
	long id = find_len(t, s, len, h);
	size_t i;
	char *copy;

	if (id >= 0)
		return id;
	if (t->nr >= UINT32_MAX - 1)
		return pgo_error("too many distinct names");
	if (PGO_ALLOC_GROW_UNINIT(t->strs, t->nr + 1, t->alloc))
		return -1;
	if ((t->nr + 1) * 2 > t->cap && strtab_rehash(t, t->cap ? t->cap * 2 : 64) < 0)
		return -1;
	/* as strndup did: up to a NUL within len */
	copy = strtab_copy(t, s, strnlen(s, len));
	if (!copy)
		return -1;
	for (i = (size_t)h & (t->cap - 1); t->slots[i].id; i = (i + 1) & (t->cap - 1))
		;
	t->slots[i].id = (uint32_t)t->nr + 1;
	t->slots[i].hash = (uint32_t)h;
	t->strs[t->nr] = copy;
	return (long)t->nr++;
}

long pgo_strtab_intern(struct pgo_strtab *t, const char *s)
{
	return pgo_strtab_intern_len(t, s, strlen(s));
}

long pgo_strtab_find(const struct pgo_strtab *t, const char *s)
{
	size_t len = strlen(s);

	return find_len(t, s, len, pgo_hash_bytes(s, len));
}

const char *pgo_strtab_str(const struct pgo_strtab *t, size_t id)
{
	return id < t->nr ? t->strs[id] : NULL;
}

void pgo_strtab_release(struct pgo_strtab *t)
{
	size_t i;

	for (i = 0; i < t->nr_chunks; i++)
		free(t->chunks[i]);
	free(t->chunks);
	free(t->strs);
	free(t->slots);
	*t = (struct pgo_strtab)PGO_STRTAB_INIT;
}
