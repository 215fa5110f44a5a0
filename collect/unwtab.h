/* SPDX-License-Identifier: MIT */
/*
 * Unwind tables for the off-CPU program's DWARF unwinder: one x86-64 ELF file's call frame
 * information (.eh_frame, or .debug_frame where there is none) turned into rows
 * (struct offcpu_unwind_row, collect/offcpu.h) sorted by file offset, each saying how to
 * find the caller's frame from any pc up to the next row.
 *
 * The file is outside input: any length, pointer or instruction that does not check out
 * makes the FDE (or, for the section structure itself, the whole table) unusable, never a
 * wrong row. Rules the BPF unwinder does not follow become OFFCPU_CFA_UNSUPPORTED rows, so
 * the stack is truncated there with a counted reason.
 */
#ifndef PGO_COLLECT_UNWTAB_H
#define PGO_COLLECT_UNWTAB_H

#include <stddef.h>
#include <stdint.h>

#include "collect/offcpu.h"

struct collect_unwtab {
	struct offcpu_unwind_row *rows; /* sorted by pc, no two consecutive rows alike */
	size_t nr, alloc;
	const char *section;     /* ".eh_frame" or ".debug_frame" (static string) */
	uint32_t fdes;           /* FDEs turned into rows */
	uint32_t fdes_bad;       /* FDEs left out: bad pointer, outside every PT_LOAD, overlaps */
	uint32_t fdes_unsupported; /* FDEs with at least one unsupported row */
	char why[96];            /* after a failure: the reason */
};
#define COLLECT_UNWTAB_INIT { NULL, 0, 0, NULL, 0, 0, 0, { 0 } }

/*
 * Build the table of the ELF file at path (or of the ELF image in memory). 0 on success
 * (the table may have no rows); -1 with t->why set when the file cannot give one: not a
 * 64-bit x86-64 ELF with program headers, no .eh_frame or .debug_frame, or a section
 * whose structure is broken. Prints nothing. Free with collect_unwtab_release().
 */
int collect_unwtab_build(const char *path, struct collect_unwtab *t);
int collect_unwtab_build_mem(const void *image, size_t size, struct collect_unwtab *t);
void collect_unwtab_release(struct collect_unwtab *t);

/* The row covering file offset off, or NULL if off is before the first row. */
const struct offcpu_unwind_row *collect_unwtab_find(const struct collect_unwtab *t, uint64_t off);

#endif
