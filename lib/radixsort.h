/* SPDX-License-Identifier: MIT */
/*
 * A stable sort by an unsigned integer key, for arrays that glibc's qsort sorted through
 * a comparison callback: its merge sort took ~250-500 instructions an element on the
 * symbol tables and address lists of a convert, where an LSD radix sort takes a few dozen.
 */
#ifndef PGO_LIB_RADIXSORT_H
#define PGO_LIB_RADIXSORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* below this, insertion sort */
#define PGO_RADIX_SMALL 32

/* One byte's counts into the offsets where each of its values starts. */
static inline void pgo_radix_offsets(uint32_t cnt[256])
{
	uint32_t at = 0, c;
	int j;

	for (j = 0; j < 256; j++) {
		c = cnt[j];
		cnt[j] = at;
		at += c;
	}
}

/*
 * PGO_RADIX_SORT(name, type, key_type, KEY): static void name(type *v, size_t n), v sorted
 * by the unsigned KEY(const type *e) (evaluated several times an element), equal keys kept
 * in their order: qsort's order for a comparison of the keys alone, where glibc's qsort
 * is its (stable) merge sort. Out of memory, it sorts by insertion.
 *
 * Where 64-bit keys span less than 2^32 (code addresses), the radix passes move 8-byte
 * pairs (key - smallest, index) over the bytes of the span alone, and the elements are
 * moved once at the end: moving the elements (16 to 32 bytes) in every pass, and
 * counting all 8 bytes of 64-bit keys, were most of the sort. Otherwise (and for 32-bit
 * keys, such as the line offsets of a function's positions, where the pairs cost more
 * than they save) the passes move the elements, over the key's bytes that differ.
 */
#define PGO_RADIX_SORT(name, type, key_type, KEY)                                               \
static void name(type *v, size_t n)                                                             \
{                                                                                               \
	uint32_t cnt[sizeof(key_type)][256];                                                    \
	key_type first, diff = 0, lo, hi;                                                       \
	type *src = v, *dst, *tmp = NULL, x;                                                    \
	uint64_t *ka = NULL, *ks, *kd, *kt;                                                     \
	size_t i, j, b, nb;                                                                     \
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
	lo = hi = KEY(&v[0]);                                                                   \
	for (i = 1; i < n; i++) {                                                               \
		key_type k = KEY(&v[i]);                                                        \
                                                                                                \
		if (k < lo)                                                                     \
			lo = k;                                                                 \
		if (k > hi)                                                                     \
			hi = k;                                                                 \
	}                                                                                       \
	if (lo == hi) {                                                                         \
		free(tmp);                                                                      \
		return;                                                                         \
	}                                                                                       \
	if (sizeof(key_type) > 4 && (uint64_t)(hi - lo) <= UINT32_MAX &&                        \
	    (ka = malloc(2 * n * sizeof(*ka)))) {                                               \
		for (nb = 0; nb < 4 && (uint64_t)(hi - lo) >> (8 * nb); nb++)                   \
			;                                                                       \
		memset(cnt, 0, nb * sizeof(cnt[0]));                                            \
		for (i = 0; i < n; i++) {                                                       \
			uint64_t k = (uint64_t)(KEY(&v[i]) - lo);                               \
                                                                                                \
			ka[i] = k << 32 | i;                                                    \
			for (b = 0; b < nb; b++)                                                \
				cnt[b][(k >> (8 * b)) & 0xff]++;                                \
		}                                                                               \
		ks = ka;                                                                        \
		kd = ka + n;                                                                    \
		for (b = 0; b < nb; b++) {                                                      \
			pgo_radix_offsets(cnt[b]);                                              \
			for (i = 0; i < n; i++)                                                 \
				kd[cnt[b][(ks[i] >> (32 + 8 * b)) & 0xff]++] = ks[i];           \
			kt = ks;                                                                \
			ks = kd;                                                                \
			kd = kt;                                                                \
		}                                                                               \
		for (i = 0; i < n; i++)                                                         \
			tmp[i] = v[(uint32_t)ks[i]];                                            \
		memcpy(v, tmp, n * sizeof(*v));                                                 \
		free(ka);                                                                       \
		free(tmp);                                                                      \
		return;                                                                         \
	}                                                                                       \
	/* first the bytes that differ: only those are counted and sorted by */                \
	first = KEY(&v[0]);                                                                     \
	for (i = 1; i < n; i++)                                                                 \
		diff |= KEY(&v[i]) ^ first;                                                     \
	for (b = 0; b < sizeof(key_type); b++) {                                                \
		if (!((diff >> (8 * b)) & 0xff))                                                \
			continue;                                                               \
		memset(cnt[b], 0, sizeof(cnt[b]));                                              \
		for (i = 0; i < n; i++)                                                         \
			cnt[b][(KEY(&v[i]) >> (8 * b)) & 0xff]++;                               \
	}                                                                                       \
	dst = tmp;                                                                              \
	for (b = 0; b < sizeof(key_type); b++) {                                                \
		type *t;                                                                        \
                                                                                                \
		/* a byte all keys share orders nothing */                                      \
		if (!((diff >> (8 * b)) & 0xff))                                                \
			continue;                                                               \
		pgo_radix_offsets(cnt[b]);                                                      \
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
