// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the .debug_line reader (convert/linetab.c) on arbitrary bytes. The
 * input is a flags byte (bit 0: 4-byte addresses, bit 1: DW_AT_comp_dir known), a 32-bit
 * little-endian length L, L bytes of .debug_line, and the rest as .debug_line_str (also
 * given as .debug_str). Rows read back must be in address order, ending a sequence.
 */
#include <stdint.h>
#include <stdlib.h>

#include "convert/linetab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct convert_dwsecs s = { 0 };
	struct convert_linetab t;
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
	if (convert_linetab_parse(&t, &s, 0, data[0] & 1 ? 4 : 8, data[0] & 2 ? "/src" : NULL) != 0)
		return 0;
	for (i = 0; i < t.nr_rows; i++) {
		const struct convert_line *r = convert_linetab_row(&t, i);
		uint64_t a = convert_line_addr(&t, r);
		size_t f = convert_linetab_find(&t, a);

		if ((i && convert_line_addr(&t, convert_linetab_row(&t, i - 1)) > a) ||
		    (f != SIZE_MAX && convert_line_addr(&t, convert_linetab_row(&t, f)) > a) ||
		    convert_linetab_lower(&t, a) > i)
			abort();
		(void)convert_linetab_file(&t, r->file);
	}
	if (t.nr_rows && !convert_linetab_row(&t, t.nr_rows - 1)->end_seq)
		abort();
	convert_linetab_release(&t);
	return 0;
}
