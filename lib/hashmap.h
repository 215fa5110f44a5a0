/* SPDX-License-Identifier: MIT */
/*
 * Hash tables for the hot paths (address caches, name interning). Hashing is xxHash
 * (libxxhash), a well-tested library, rather than a hand-rolled function.
 *
 * struct pgo_u64map: u64 key -> u64 value, open addressing with linear probing.
 * struct pgo_strtab: string interning, string -> dense id (0, 1, 2, ... in insertion
 * order). Strings are copied into the table, which owns them (in large chunks: a malloc
 * and a free per name were a third of interning).
 */
#ifndef PGO_LIB_HASHMAP_H
#define PGO_LIB_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

uint64_t pgo_hash_bytes(const void *data, size_t len);

struct pgo_u64map_slot {
	uint64_t key;
	uint64_t value;
	int used;
};
struct pgo_u64map {
	struct pgo_u64map_slot *slots;
	size_t cap;   /* power of two, or 0 */
	size_t count;
};
#define PGO_U64MAP_INIT { NULL, 0, 0 }

/* Borrowed pointer to the value of key, or NULL. Valid until the next insertion. */
uint64_t *pgo_u64map_find(const struct pgo_u64map *m, uint64_t key);
/* Insert key (value 0) if missing; *value points at its value. Returns 1 if inserted,
 * 0 if present, -1 on allocation failure. */
int pgo_u64map_get(struct pgo_u64map *m, uint64_t key, uint64_t **value);
int pgo_u64map_put(struct pgo_u64map *m, uint64_t key, uint64_t value);
void pgo_u64map_release(struct pgo_u64map *m);

struct pgo_strtab_slot {
	uint32_t id;        /* id + 1, 0: empty */
	uint32_t hash;      /* low bits of the string's hash: the slot, and a quick compare */
};
struct pgo_strtab {
	char **strs;        /* id -> string (owned: in chunks) */
	size_t nr, alloc;
	struct pgo_strtab_slot *slots; /* open addressing, at most half full */
	size_t cap;         /* power of two, or 0 */
	char **chunks;      /* where the strings are stored */
	size_t nr_chunks, alloc_chunks;
	char *room;         /* free space in the last chunk */
	size_t room_len;
};
#define PGO_STRTAB_INIT { NULL, 0, 0, NULL, 0, NULL, 0, 0, NULL, 0 }

/* Id of s, adding it if new. Returns id >= 0, or -1 on allocation failure. */
long pgo_strtab_intern(struct pgo_strtab *t, const char *s);
long pgo_strtab_intern_len(struct pgo_strtab *t, const char *s, size_t len);
/* Id of s, or -1 if absent. */
long pgo_strtab_find(const struct pgo_strtab *t, const char *s);
/* Borrowed string for an id (< nr). */
const char *pgo_strtab_str(const struct pgo_strtab *t, size_t id);
void pgo_strtab_release(struct pgo_strtab *t);

#endif
