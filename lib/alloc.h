/* SPDX-License-Identifier: MIT */
/*
 * Checked allocation helpers. Nothing here exits: every function returns NULL or -1
 * (after reporting "out of memory") and the caller unwinds.
 */
#ifndef PGO_LIB_ALLOC_H
#define PGO_LIB_ALLOC_H

#include <stddef.h>

/*
 * Make room for at least `nr` elements of `size` bytes in *ptr, whose capacity is
 * *alloc elements; grows geometrically and zeroes the new tail. Returns 0 or -1.
 */
int pgo_alloc_grow(void **ptr, size_t nr, size_t *alloc, size_t size);
/*
 * Room already: no call (appending one element at a time is the common use). nr and
 * alloc are evaluated twice: pass plain lvalues and expressions without side effects.
 */
#define PGO_ALLOC_GROW(p, nr, alloc)                                                           \
	((size_t)(nr) <= (alloc) ? 0 : pgo_alloc_grow((void **)&(p), (nr), &(alloc), sizeof(*(p))))
/*
 * The same without zeroing the new tail, for arrays whose elements are written before
 * they are read (appended one by one, a buffer up to its length): the memset was a fifth
 * of a convert's page faults, on tails that were then overwritten or never touched.
 */
int pgo_alloc_grow_uninit(void **ptr, size_t nr, size_t *alloc, size_t size);
#define PGO_ALLOC_GROW_UNINIT(p, nr, alloc)                                                    \
	((size_t)(nr) <= (alloc) ? 0 : pgo_alloc_grow_uninit((void **)&(p), (nr), &(alloc), sizeof(*(p))))

/* calloc/strdup that report failure. The result is new: free() it. */
void *pgo_calloc(size_t n, size_t size);
char *pgo_strdup(const char *s);
char *pgo_strndup(const char *s, size_t n);

/* free(*p) and set *p = NULL. */
#define PGO_ZFREE(p) do { free(*(p)); *(p) = NULL; } while (0)

#define PGO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
