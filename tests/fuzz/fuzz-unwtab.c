// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: collect/unwtab.c's table builder on an ELF image (the CIE/FDE parser
 * and the DW_CFA_* interpreter), then a lookup at every row: the rows must be sorted and
 * their kinds in range.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/unwtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_unwtab t;
	size_t i;
	void *copy;

	/* libelf may write into the image (section decompression): fuzz a private copy */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (!collect_unwtab_build_mem(copy, size, &t)) {
		for (i = 0; i < t.nr; i++) {
			if (i && t.rows[i].pc <= t.rows[i - 1].pc)
				abort();
			if (OFFCPU_ROW_CFA(t.rows[i].kind) > OFFCPU_CFA_UNSUPPORTED ||
			    OFFCPU_ROW_RBP(t.rows[i].kind) > OFFCPU_RBP_LOST)
				abort();
			if (collect_unwtab_find(&t, t.rows[i].pc) != &t.rows[i])
				abort();
		}
		collect_unwtab_release(&t);
	}
	free(copy);
	return 0;
}
