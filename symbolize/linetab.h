/* SPDX-License-Identifier: MIT */
/*
 * A compile unit's line table, decoded from .debug_line directly: the rows and file names
 * libdw's dwarf_getsrclines() and dwarf_linesrc() give, in the same order, for DWARF 2 to 5.
 *
 * Why not libdw: elfutils 0.188 (Debian 12) mallocs a list node for every row beyond the
 * first 2048 and qsorts all rows of a unit with a callback. Converting a short recording of
 * sqlite3's speedtest1 (one 8 MB compile unit, the amalgamation) spent 165 M of its 243 M
 * instructions there. Here the rows go into one array, and sorting is a sort of the unit's
 * sequences (one per code section), which are already in address order inside.
 *
 * The DIEs are still libdw's; only the line program is read here. Anything this reader
 * does not handle (DW_LNE_define_file, string forms that need .debug_str_offsets, values
 * libdw 0.188 would reject) makes symbolize_linetab_read() fail, and the caller uses libdw
 * for that unit: a unit either has exactly libdw's rows or is read by libdw.
 * tests/unit/symbolize-linetab.c checks the rows against libdw's, row by row.
 */
#ifndef PGO_SYMBOLIZE_LINETAB_H
#define PGO_SYMBOLIZE_LINETAB_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

/* The sections line programs (and symbolize/dies.h) read, from the ELF file libdw reads
 * (decompressed). */
struct symbolize_dwsecs {
	const uint8_t *line, *line_str, *str, *info, *abbrev, *ranges;
	size_t line_size, line_str_size, str_size, info_size, abbrev_size, ranges_size;
};

/*
 * Find the sections in dwarf's ELF file. Returns 0, or -1 when the file has no usable
 * .debug_line (none, still compressed, or relocatable): use libdw for every unit then.
 */
int symbolize_dwsecs_get(Dwarf *dwarf, struct symbolize_dwsecs *s);

/* 16 bytes: a unit's rows can be hundreds of thousands (sqlite3's amalgamation: 208084). */
struct symbolize_line {
	int32_t off;        /* address - the table's base (a unit spans far less than 2 GB) */
	int32_t line;
	uint32_t file;      /* index into the unit's file names */
	uint32_t discr : 24, end_seq : 1;
};

/* A run of rows in address order: one sequence of the line program, or all rows. */
struct symbolize_lineseq {
	uint64_t lo;        /* its first row's address */
	size_t start, n;    /* rows[start .. start + n) */
};

/* An address range [lo, hi) whose lookups a table must answer (see symbolize_linetab_read). */
struct symbolize_linerange {
	uint64_t lo, hi;
};

/* A row's fields while it is read (struct symbolize_line without the bit fields). */
struct symbolize_lineval {
	int32_t off, line;
	uint32_t file, discr;
};

/* The first of r[from .. n) (sorted, disjoint) that ends above addr; n if none. */
size_t convert_linerange_above(const struct symbolize_linerange *r, size_t from, size_t n, uint64_t addr);

/* Where a partial table is reading: the row read last, not yet kept or dropped. */
struct symbolize_linekeep {
	const struct symbolize_linerange *r; /* sorted, disjoint */
	size_t n, k;                 /* k: the first range ending above the held row */
	uint64_t next_lo, cur_hi;    /* where range k starts (UINT64_MAX: none left) and ends */
	struct symbolize_lineval held;
	uint64_t held_addr;
	int have_held, failed;
};

struct symbolize_linetab {
	uint64_t base;               /* the first row's address */
	int based;                   /* base is set */
	int partial;                 /* only the rows the ranges asked for were kept */
	struct symbolize_linekeep keep; /* while reading a partial table */
	struct symbolize_line *rows;   /* in libdw's order */
	size_t nr_rows, alloc_rows;
	struct symbolize_lineseq *seqs; /* by address; disjoint (while reading: as read, ended ones) */
	size_t nr_seqs, alloc_seqs;
	size_t seq_start;            /* while reading: the first row of the sequence being read */
	int out_of_order;            /* while reading: a row sorts before the one read before it */
	int backwards;               /* while reading: such a row not after an end (inside a sequence) */
	uint32_t *name_off;          /* file index -> offset in names */
	size_t nr_files, alloc_files;
	char *names;                 /* NUL-terminated file names */
	size_t names_len, names_alloc;
};

/*
 * Read cudie's line table. Returns 0, or -1 if the unit has none or this reader cannot
 * give libdw's result for it (no report: the caller falls back to libdw). t is released
 * on failure.
 *
 * With nr_keep ranges (sorted, disjoint, unit addresses), the whole line program is still
 * run and checked, but only the rows that answer questions about addresses inside them
 * are kept, and t->partial is set: a row is kept if an address of a range lies between it
 * and the next row of its sequence, and every sequence's end. Then
 * symbolize_linetab_find(pc), symbolize_linetab_lower(addr) and the rows from there up to a
 * range's end are libdw's for any pc and addr inside a range; elsewhere they are not, and
 * the caller must read the table whole. A unit whose rows go backwards inside a sequence,
 * or whose last sequence has no end, is read whole (t->partial is 0): there the next row
 * read is not the next by address. sqlite3's one 8 MB unit has 208084 rows; a short
 * recording asks about a few thousand of them.
 */
int symbolize_linetab_read(struct symbolize_linetab *t, const struct symbolize_dwsecs *s,
			 Dwarf_Die *cudie, const struct symbolize_linerange *keep, size_t nr_keep);

/* The same from the unit's fields: its .debug_line offset, address size and DW_AT_comp_dir
 * (NULL if none). */
int symbolize_linetab_parse(struct symbolize_linetab *t, const struct symbolize_dwsecs *s, uint64_t off,
			  unsigned addr_size, const char *comp_dir,
			  const struct symbolize_linerange *keep, size_t nr_keep);

static inline uint64_t symbolize_line_addr(const struct symbolize_linetab *t, const struct symbolize_line *r)
{
	return t->base + (uint64_t)(int64_t)r->off;
}

/* The index-th row (index < nr_rows) in libdw's order: what dwarf_onesrcline gives. */
static inline const struct symbolize_line *symbolize_linetab_row(const struct symbolize_linetab *t, size_t index)
{
	return &t->rows[index];
}

/* The index of the first row at or above addr (nr_rows if none). */
size_t symbolize_linetab_lower(const struct symbolize_linetab *t, uint64_t addr);

/* The index of the row that covers pc as dwarf_getsrc_die() picks it: the last with
 * addr <= pc, unless that one ends a sequence. SIZE_MAX if none. */
size_t symbolize_linetab_find(const struct symbolize_linetab *t, uint64_t pc);

/* A file name as dwarf_linesrc() gives it (the directory joined), or NULL if out of range. */
const char *symbolize_linetab_file(const struct symbolize_linetab *t, uint32_t idx);

void symbolize_linetab_release(struct symbolize_linetab *t);

#endif
