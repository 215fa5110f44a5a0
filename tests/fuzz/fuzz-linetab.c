// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the .debug_line reader (symbolize/linetab.c) on arbitrary bytes. The
 * input is a flags byte (bit 0: 4-byte addresses, bit 1: DW_AT_comp_dir known), a 32-bit
 * little-endian length L, L bytes of .debug_line, and the rest as .debug_line_str (also
 * given as .debug_str). Rows read back must be in address order, ending a sequence. The
 * table read again for a few ranges (symbolize_linetab_read's partial tables) must find
 * the same row as the whole one for every row address in them, and the byte after it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/linetab.h"
#include "tests/unit/linetab-rows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Ranges at some row addresses (which, from seed), as a caller would ask for them. */
static void check_partial(const struct symbolize_dwsecs *s, const struct symbolize_linetab *t, unsigned asz,
			  const char *dir, unsigned seed)
{
	struct symbolize_linerange r[64];
	struct symbolize_linetab p;
	size_t nr = 0, i, k;

	for (i = 0; i < t->nr_rows && nr < 64; i++) {
		uint64_t lo = symbolize_line_addr(t, symbolize_linetab_row(t, i)) + ((i + seed) & 1);

		if ((i * 7 + seed) % 5 || (nr && lo < r[nr - 1].hi) || lo + 1 + (i + seed) % 9 < lo)
			continue;
		r[nr].lo = lo;
		r[nr++].hi = lo + 1 + (i + seed) % 9;
	}
	if (!nr || symbolize_linetab_parse(&p, s, 0, asz, dir, r, nr) != 0) {
		if (nr)
			abort();                  /* the whole table was read: so must this be */
		return;
	}
	for (i = 0; i < t->nr_rows; i++) {
		for (k = 0; k < 2; k++) {
			uint64_t a = symbolize_line_addr(t, symbolize_linetab_row(t, i)) + k;
			size_t j;

			for (j = 0; j < nr && !(a >= r[j].lo && a < r[j].hi); j++)
				;
			if (j < nr && !linetab_same_row(t, symbolize_linetab_find(t, a), &p, symbolize_linetab_find(&p, a)))
				abort();
		}
	}
	symbolize_linetab_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolize_dwsecs s = { 0 };
	struct symbolize_linetab t;
	size_t i;
	uint32_t len;

	if (size < 5)
		return 0;
	len = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
	if (len > size - 5)
		len = (uint32_t)(size - 5);
	s.line = data + 5;
	s.line_size = len;
	s.line_str = s.str = data + 5 + len;
	s.line_str_size = s.str_size = size - 5 - len;
	if (symbolize_linetab_parse(&t, &s, 0, data[0] & 1 ? 4 : 8, data[0] & 2 ? "/src" : NULL, NULL, 0) != 0)
		return 0;
	for (i = 0; i < t.nr_rows; i++) {
		const struct symbolize_line *r = symbolize_linetab_row(&t, i);
		uint64_t a = symbolize_line_addr(&t, r);
		size_t f = symbolize_linetab_find(&t, a);

		if ((i && symbolize_line_addr(&t, symbolize_linetab_row(&t, i - 1)) > a) ||
		    (f != SIZE_MAX && symbolize_line_addr(&t, symbolize_linetab_row(&t, f)) > a) ||
		    symbolize_linetab_lower(&t, a) > i)
			abort();
		(void)symbolize_linetab_file(&t, r->file);
	}
	if (t.nr_rows && !symbolize_linetab_row(&t, t.nr_rows - 1)->end_seq)
		abort();
	check_partial(&s, &t, data[0] & 1 ? 4 : 8, data[0] & 2 ? "/src" : NULL, data[0] >> 2);
	symbolize_linetab_release(&t);
	return 0;
}
