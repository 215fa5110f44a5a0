/* SPDX-License-Identifier: MIT */
/*
 * A stable sort by an unsigned integer key, for arrays that glibc's qsort sorted through
 * a comparison callback: its merge sort took ~250-500 instructions an element on the
 * symbol tables and address lists of a convert, where an LSD radix sort over the key's
 * bytes that differ (two to four for code addresses) takes a few dozen.
 */
#ifndef PGO_LIB_RADIXSORT_H
#define PGO_LIB_RADIXSORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* below this, insertion sort */
#define PGO_RADIX_SMALL 32

/*
 * PGO_RADIX_SORT(name, type, key_type, KEY): static void name(type *v, size_t n), v sorted
 * by the unsigned KEY(const type *e) (evaluated several times an element), equal keys kept
 * in their order: qsort's order for a comparison of the keys alone, where glibc's qsort
 * is its (stable) merge sort. Out of memory, it sorts by insertion.
 */
#define PGO_RADIX_SORT(name, type, key_type, KEY)                                               \
static void name(type *v, size_t n)                                                             \
{                                                                                               \
	uint32_t cnt[sizeof(key_type)][256];                                                    \
	key_type first, diff = 0;                                                               \
	type *src = v, *dst, *tmp = NULL, x;                                                    \
	size_t i, j, b;                                                                         \
                                                                                                \
	if (n > PGO_RADIX_SMALL && n <= UINT32_MAX)                                             \
		tmp = malloc(n * sizeof(*v));                                                   \
	if (!tmp) {                                                                             \
		for (i = 1; i < n; i++) {                                                       \
			x = v[i];                                                               \
			for (j = i; j > 0 && KEY(&v[j - 1]) > KEY(&x); j--)                     \
				v[j] = v[j - 1];                                                \
			v[j] = x;                                                               \
		}                                                                               \
		return;                                                                         \
	}                                                                                       \
	memset(cnt, 0, sizeof(cnt));                                                            \
	first = KEY(&v[0]);                                                                     \
	for (i = 0; i < n; i++) {                                                               \
		key_type k = KEY(&v[i]);                                                        \
                                                                                                \
		diff |= k ^ first;                                                              \
		for (b = 0; b < sizeof(key_type); b++)                                          \
			cnt[b][(k >> (8 * b)) & 0xff]++;                                        \
	}                                                                                       \
	dst = tmp;                                                                              \
	for (b = 0; b < sizeof(key_type); b++) {                                                \
		uint32_t at = 0;                                                                \
		type *t;                                                                        \
                                                                                                \
		/* a byte all keys share orders nothing */                                      \
		if (!((diff >> (8 * b)) & 0xff))                                                \
			continue;                                                               \
		for (j = 0; j < 256; j++) {                                                     \
			uint32_t c = cnt[b][j];                                                 \
                                                                                                \
			cnt[b][j] = at;                                                         \
			at += c;                                                                \
		}                                                                               \
		for (i = 0; i < n; i++)                                                         \
			dst[cnt[b][(KEY(&src[i]) >> (8 * b)) & 0xff]++] = src[i];               \
		t = src;                                                                        \
		src = dst;                                                                      \
		dst = t;                                                                        \
	}                                                                                       \
	if (src != v)                                                                           \
		memcpy(v, src, n * sizeof(*v));                                                 \
	free(tmp);                                                                              \
}

#endif
