/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files of the .debug_line reader (symbolize/linetab.h is its
 * contract); not for anything outside symbolize/linetab*.c.
 *
 *   linetab_header.c  a unit's header and file tables (DWARF 5 section 6.2.4)
 *   linetab.c         the line program (section 6.2.5) into rows; the parse entry points
 *   linetab_rows.c    the rows into libdw's order, and the lookups over them
 */
#ifndef PGO_SYMBOLIZE_LINETAB_INTERNAL_H
#define PGO_SYMBOLIZE_LINETAB_INTERNAL_H

#include <stdint.h>

#include "symbolize/linetab.h"

/* A bounded reader: any read past the end sets bad and returns 0. */
struct cur {
	const uint8_t *p, *end;
	int bad;
};

/* The header of one line program (DWARF 5 section 6.2.4). */
struct hdr {
	unsigned version, offset_size, addr_size;
	unsigned min_inst_len, max_ops, default_is_stmt, line_range, opcode_base;
	int line_base;
	const uint8_t *std_len;          /* std_len[k]: operands of standard opcode k (k >= 1) */
	const uint8_t *unit_end, *prog;
};

/*
 * The header of the unit at c (its length and version checked against sec_end and the
 * unit's address size) into h; c is left at the tables. 0, or -1 on a malformed header.
 */
int symbolize_linetab_read_header(struct cur *c, const uint8_t *sec_end, unsigned cu_addr_size,
				  struct hdr *h);
/*
 * The directory and file tables at c into t's file names: DWARF 5's entry formats (*dirs:
 * the directory names read, for the caller to free), or DWARF 2-4's lists under comp_dir.
 * 0, or -1 (out of memory, or what libdw would not read).
 */
int symbolize_linetab_read_v5_tables(struct cur *c, const struct hdr *h,
				     const struct symbolize_dwsecs *s, struct symbolize_linetab *t,
				     const char ***dirs);
int symbolize_linetab_read_v4_tables(struct cur *c, const char *comp_dir, struct symbolize_linetab *t);
/* Append file name dir/name (name alone if absolute or dir NULL) to t. 0 or -1. */
int symbolize_linetab_add_name(struct symbolize_linetab *t, const char *dir, const char *name);

/* The rows as read into libdw's order, in t->seqs' runs (linetab_rows.c). 0 or -1. */
int symbolize_linetab_sort_rows(struct symbolize_linetab *t);

#endif
