/* SPDX-License-Identifier: MIT */
/*
 * Reading the variable-length and little-endian integers of DWARF (LEB128, DWARF 5
 * section 7.6) from a bounded buffer. Each reader returns the position past the value,
 * or NULL if the value runs past end; bits past 64 are dropped, as libdw drops them.
 */
#ifndef PGO_LIB_LEB128_H
#define PGO_LIB_LEB128_H

#include <stddef.h>
#include <stdint.h>

static inline const uint8_t *pgo_uleb128(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (p < end) {
		uint8_t b = *p++;

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return p;
	}
	return NULL;
}

static inline const uint8_t *pgo_sleb128(const uint8_t *p, const uint8_t *end, int64_t *v)
{
	uint64_t u = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (p >= end)
			return NULL;
		b = *p++;
		if (shift < 64)
			u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		u |= ~(uint64_t)0 << shift;
	*v = (int64_t)u;
	return p;
}

/* n (<= 8) bytes at p, little-endian (the byte order of every target pgo reads: x86-64, arm64) */
static inline uint64_t pgo_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
