/* SPDX-License-Identifier: MIT */
/*
 * A compile unit's DIEs read from .debug_info directly, for the walks the scope tree
 * makes (symbolize/scopetree.h): children in order, tags, and the address range of a DIE
 * that has its own DW_AT_low_pc and DW_AT_high_pc. Everything else stays libdw's: a DIE is
 * handed over as a Dwarf_Die (its offset) wherever more is needed.
 *
 * Why not libdw: dwarf_siblingof finds a DIE's end by decoding every attribute through a
 * generic lookup, and a DIE with children but no DW_AT_sibling (the last child of a list,
 * which gcc leaves without one) by walking its whole subtree, again; dwarf_ranges reads
 * DW_AT_high_pc and DW_AT_low_pc in two more scans. The scope tree of sqlite3's one 8 MB
 * unit walks every top-level DIE and every DIE of the sampled functions: that was a
 * quarter of a short recording's convert.
 *
 * The reader covers DWARF 2 to 5 units of types compile and partial with 4- or 8-byte
 * addresses, little-endian. A unit it cannot read (split DWARF, an abbreviation code past
 * 65535, a form it does not know, data that ends early) makes symbolize_dieunit_open or the
 * walk fail without a report, and the caller uses libdw for it.
 */
#ifndef PGO_SYMBOLIZE_DIES_H
#define PGO_SYMBOLIZE_DIES_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "symbolize/linetab.h"

struct convert_abbrev_attr;
struct symbolize_die_step;

struct symbolize_dieunit {
	Dwarf *dwarf;
	Dwarf_CU *cu;                 /* libdw's unit, for the DIEs handed over */
	const uint8_t *info;          /* .debug_info */
	size_t info_size;
	uint64_t unit_off;            /* the unit header's offset in .debug_info */
	const uint8_t *end;           /* the unit's end */
	unsigned version, addr_size, offset_size;
	struct symbolize_abbrev *abbrevs; /* by code; tag 0: no such code */
	size_t nr_abbrevs;
	struct convert_abbrev_attr *attrs; /* the abbreviations' attribute lists */
	size_t nr_attrs;
	struct symbolize_die_step *steps; /* the same with runs of fixed-size attributes merged */
	size_t nr_steps;
	const char *str, *line_str;   /* .debug_str, .debug_line_str if NUL-terminated, or NULL */
	size_t str_size, line_str_size;
	const uint8_t *ranges;        /* .debug_ranges for a unit of DWARF 2 to 4, or NULL */
	size_t ranges_size;
	uint64_t base;                /* the unit's base address, as libdw takes it for ranges */
};

/* One DIE, read: where it starts and ends, and what the scope tree asks about it. */
struct symbolize_die {
	const uint8_t *p;             /* the DIE (its abbreviation code) */
	const uint8_t *attrs_end;     /* past its attributes: its first child, if it has any */
	const uint8_t *sibling;       /* DW_AT_sibling's target, or NULL */
	unsigned tag;
	int has_children;
	/*
	 * Read for subprograms, inlined subroutines and lexical blocks only (0 for others):
	 * its own attributes, as dwarf_hasattr sees them, and [lo, hi) if simple_pc: what
	 * dwarf_ranges gives for it.
	 */
	int has_lowpc, has_highpc, has_ranges;
	int simple_pc;
	uint64_t lo, hi;
	unsigned ranges_form;         /* DW_AT_ranges: its form and value */
	const uint8_t *ranges_p;
};

/*
 * Get ready to read cudie's unit from the sections in s (.debug_info and .debug_abbrev
 * as libdw reads them). Returns 0, or -1 if this reader cannot read the unit.
 */
int symbolize_dieunit_open(struct symbolize_dieunit *u, const struct symbolize_dwsecs *s, Dwarf_Die *cudie);
void symbolize_dieunit_release(struct symbolize_dieunit *u);

/* Where the DIE at .debug_info offset off is, or NULL if not in the unit. */
const uint8_t *symbolize_die_pos(const struct symbolize_dieunit *u, uint64_t off);

/* An abbreviation as the reader keeps it (dies.c's to fill; here for symbolize_die_read). */
struct symbolize_abbrev {
	unsigned tag;                 /* 0: no abbreviation has this code */
	int has_children;
	int32_t plain;                /* attributes all fixed-size, none noted: their size; else -1 */
	uint32_t first, n;            /* attrs[first .. first + n) */
	int fn;                       /* a subprogram or inlined subroutine: attrs kept */
	uint32_t sfirst, sn;          /* steps[sfirst .. sfirst + sn) */
};

/* symbolize_die_read's parts out of line: any DIE; the attributes of d (abbreviation a) from p on */
int symbolize_die_read_any(const struct symbolize_dieunit *u, const uint8_t *p, struct symbolize_die *d);
int symbolize_die_read_attrs(const struct symbolize_dieunit *u, const struct symbolize_abbrev *a, const uint8_t *p,
			   struct symbolize_die *d);

/*
 * Read the DIE at p into *d. Returns 1, 0 at a null entry (the end of a list of children:
 * the next list goes on at p + 1), or -1 if the data cannot be read.
 *
 * Inline for a one-byte abbreviation code and fixed-size attributes none of which is
 * noted (types, members, parameters: half the DIEs of a walk), and the attribute loop
 * out of line: the call per DIE, and the registers the loop needs, were a third of the
 * instructions of a read.
 */
static inline int symbolize_die_read(const struct symbolize_dieunit *u, const uint8_t *p, struct symbolize_die *d)
{
	const struct symbolize_abbrev *a;

	if (p >= u->end || (*p & 0x80))
		return symbolize_die_read_any(u, p, d);
	memset(d, 0, sizeof(*d));
	d->p = p;
	if (!*p) {
		d->attrs_end = p + 1;
		return 0;
	}
	if (*p >= u->nr_abbrevs || !(a = &u->abbrevs[*p])->tag)
		return -1;
	d->tag = a->tag;
	d->has_children = a->has_children;
	if (a->plain < 0)
		return symbolize_die_read_attrs(u, a, p + 1, d);
	if (a->plain > u->end - (p + 1))
		return -1;
	d->attrs_end = p + 1 + a->plain;
	return 1;
}

/*
 * Where the DIE after d and its children is: DW_AT_sibling's target, or the end of its
 * children's list found by reading them, as dwarf_siblingof goes. NULL if unreadable.
 */
const uint8_t *symbolize_die_skip(const struct symbolize_dieunit *u, const struct symbolize_die *d);

static inline uint64_t symbolize_die_offset(const struct symbolize_dieunit *u, const uint8_t *p)
{
	return (uint64_t)(p - u->info);
}

/*
 * What dwarf_ranges gives for d, where d has DW_AT_ranges into .debug_ranges and neither
 * DW_AT_low_pc nor DW_AT_high_pc (a function split in hot and cold parts, a lexical block
 * of inlined code): each range [lo, hi) through fn(arg, lo, hi), as dwarf_ranges gives
 * them, up to the end of the list or data it stops at. libdw found the range list
 * through a scan of the DIE's attributes per call, after two more for the pcs, and read
 * the unit's abbreviations for it a second time: 3% of a convert. Returns 1, 0 if
 * libdw is to read them (another form, DWARF 5's lists), or fn's error (< 0).
 */
int symbolize_die_ranges(const struct symbolize_dieunit *u, const struct symbolize_die *d,
		       int (*fn)(void *arg, uint64_t lo, uint64_t hi), void *arg);

/*
 * The DIE at p for libdw. Returns 0, or -1. A DIE of the unit is made as dwarf_offdie
 * makes it (its address and unit, nothing read yet) without its search for the unit,
 * which was 1% of a convert.
 */
int symbolize_die_libdw(const struct symbolize_dieunit *u, const uint8_t *p, Dwarf_Die *out);

/*
 * The attributes symbolization reads of a function's DIE (symbolize/symtab.c), read in one
 * pass where libdw's dwarf_attr scans the DIE again for each: on sqlite3, the names and
 * call sites of the sampled functions' inline instances were a tenth of a convert.
 */
enum symbolize_die_at {
	SYMBOLIZE_AT_NAME, SYMBOLIZE_AT_LINKAGE_NAME, SYMBOLIZE_AT_MIPS_LINKAGE_NAME, SYMBOLIZE_AT_DECL_LINE,
	SYMBOLIZE_AT_ABSTRACT_ORIGIN, SYMBOLIZE_AT_SPECIFICATION, SYMBOLIZE_AT_CALL_FILE, SYMBOLIZE_AT_CALL_LINE,
	SYMBOLIZE_AT_DISCRIMINATOR, SYMBOLIZE_AT_ENTRY_PC, SYMBOLIZE_AT_LOW_PC, SYMBOLIZE_NR_AT
};

/* One attribute's value as read: form 0 if the DIE has none of that name. */
struct symbolize_die_attr {
	unsigned form;
	const uint8_t *p;             /* its value in .debug_info */
	int64_t implicit;             /* DW_FORM_implicit_const's value (in the abbreviation) */
};

struct symbolize_die_attrs {
	unsigned tag;
	struct symbolize_die_attr at[SYMBOLIZE_NR_AT]; /* the first of each name, as dwarf_attr finds it */
};

/*
 * Read the DIE at p's attributes of enum symbolize_die_at into *a. Returns 1, or -1 as
 * symbolize_die_read, and for a DIE that is neither a subprogram nor an inlined subroutine
 * (libdw's to read).
 */
int symbolize_die_attrs(const struct symbolize_dieunit *u, const uint8_t *p, struct symbolize_die_attrs *a);

/* The constant a holds, as dwarf_formudata reads it. Returns 0, or -1 for a form left to libdw. */
int symbolize_die_udata(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a, uint64_t *v);

/* The address a holds, as dwarf_formaddr reads it: 1, 0 if a is absent, -1 for a form left to libdw. */
int symbolize_die_addr(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a, uint64_t *v);

/* The string a holds, as dwarf_formstring reads it, or NULL for a form left to libdw. */
const char *symbolize_die_string(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a);

/* The DIE a (a reference) names in the unit, or NULL if another form, or not in the unit. */
const uint8_t *symbolize_die_ref(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a);

#endif
