// SPDX-License-Identifier: MIT
/* A unit's DIEs from .debug_info, for the scope tree (symbolize/dies.h). */
#include <dwarf.h>
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dies.h"
#include "lib/leb128.h"

#define MAX_CODE 65535

/* An attribute as symbolize_die_read walks it: a run of fixed-size attributes is one step. */
struct symbolize_die_step {
	uint32_t name;
	uint16_t form;
	uint8_t noted;
	int32_t size;                 /* its size (a run's total), -1 if the value says */
};

/* An attribute as symbolize_die_attrs reads it (16 bytes: a unit's lists are kept). */
struct convert_abbrev_attr {
	int64_t implicit;             /* DW_FORM_implicit_const's value */
	int32_t size;                 /* the form's size, -1 if the value says */
	uint16_t form;
	int8_t slot;                  /* its enum symbolize_die_at, or -1 */
};

/* A ULEB128 at *pp below end; sets *pp to NULL if it runs past end. */
static inline __attribute__((always_inline)) uint64_t uleb(const uint8_t **pp, const uint8_t *end)
{
	uint64_t v;

	/* abbreviation codes and most values fit in one byte */
	if (*pp < end && !(**pp & 0x80))
		return *(*pp)++;

	*pp = pgo_uleb128(*pp, end, &v);
	return *pp ? v : 0;
}

/*
 * n (<= 8) bytes at p, little-endian: pgo_le's value, with one load for the 4 and 8
 * bytes of addresses and offsets (a range list of sqlite3's was 1.2% of a convert in
 * pgo_le's byte loop).
 */
static inline uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v8;
	uint32_t v4;

	if (n == 8) {
		memcpy(&v8, p, 8);
		return le64toh(v8);
	}
	if (n == 4) {
		memcpy(&v4, p, 4);
		return le32toh(v4);
	}
	return pgo_le(p, n);
}

/* The size of a value of form, or -1 if it depends on the value. */
static int form_size(const struct symbolize_dieunit *u, unsigned form)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return (int)u->addr_size;
	case DW_FORM_ref_addr:
		return (int)(u->version == 2 ? u->addr_size : u->offset_size);
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return (int)u->offset_size;
	default:
		return -1;
	}
}

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

/*
 * What the reader does with an attribute of name: bits 0-3, its enum symbolize_die_at + 1
 * (0: none); bit 4, note() reads it. A table for the names below 0x80.
 */
#define AT_NOTED 0x10
static const uint8_t at_info[0x80] = {
	[DW_AT_name] = SYMBOLIZE_AT_NAME + 1,
	[DW_AT_linkage_name] = SYMBOLIZE_AT_LINKAGE_NAME + 1,
	[DW_AT_decl_line] = SYMBOLIZE_AT_DECL_LINE + 1,
	[DW_AT_abstract_origin] = SYMBOLIZE_AT_ABSTRACT_ORIGIN + 1,
	[DW_AT_specification] = SYMBOLIZE_AT_SPECIFICATION + 1,
	[DW_AT_call_file] = SYMBOLIZE_AT_CALL_FILE + 1,
	[DW_AT_call_line] = SYMBOLIZE_AT_CALL_LINE + 1,
	[DW_AT_entry_pc] = SYMBOLIZE_AT_ENTRY_PC + 1,
	[DW_AT_low_pc] = (SYMBOLIZE_AT_LOW_PC + 1) | AT_NOTED,
	[DW_AT_high_pc] = AT_NOTED,
	[DW_AT_ranges] = AT_NOTED,
	[DW_AT_sibling] = AT_NOTED,
};

static unsigned name_info(uint64_t name)
{
	if (name < 0x80)
		return at_info[name];
	if (name == DW_AT_MIPS_linkage_name)
		return SYMBOLIZE_AT_MIPS_LINKAGE_NAME + 1;
	return name == DW_AT_GNU_discriminator ? SYMBOLIZE_AT_DISCRIMINATOR + 1 : 0;
}

/* Room for one more of *v (n used, *alloc allocated, elements of size). 0, or -1. */
static int grow(void *v, size_t n, size_t *alloc, size_t size)
{
	void *p;
	size_t a;

	if (n < *alloc)
		return 0;
	a = *alloc ? 2 * *alloc : 512;
	if (!(p = realloc(*(void **)v, a * size)))
		return -1;
	*(void **)v = p;
	*alloc = a;
	return 0;
}

/* The entry of abbreviation code in u's table, grown (zeroed) to hold it; NULL if out of memory. */
static struct symbolize_abbrev *abbrev_slot(struct symbolize_dieunit *u, uint64_t code)
{
	if (code >= u->nr_abbrevs) {
		size_t n = u->nr_abbrevs ? u->nr_abbrevs : 64;
		struct symbolize_abbrev *v;

		while (n <= code)
			n *= 2;
		if (!(v = realloc(u->abbrevs, n * sizeof(*v))))
			return NULL;
		memset(v + u->nr_abbrevs, 0, (n - u->nr_abbrevs) * sizeof(*v));
		u->abbrevs = v;
		u->nr_abbrevs = n;
	}
	return &u->abbrevs[code];
}

/* Growth of u's attribute lists while a table is read. */
struct abbrev_alloc {
	size_t attrs, steps;
};

/*
 * The attribute specifications of abbreviation a at *pp (up to its 0, 0) into u's lists:
 * a function's attributes for symbolize_die_attrs, every DIE's steps for
 * symbolize_die_read. sizes: the forms' sizes in this unit. Returns 0, or -1.
 */
static int read_abbrev_attrs(struct symbolize_dieunit *u, struct symbolize_abbrev *a, const uint8_t **pp,
			     const uint8_t *end, const int8_t *sizes, int pc_tag, struct abbrev_alloc *al)
{
	const uint8_t *p = *pp;
	int merge = 0;                 /* the last step is a run of fixed-size attributes */
	uint64_t name, form;

	for (;;) {
		struct convert_abbrev_attr *at;
		int64_t implicit = 0;
		unsigned info;
		int noted, size;

		/* both one byte, mostly: names below 0x80 (not GNU's), forms all */
		if (end - p >= 2 && !((p[0] | p[1]) & 0x80)) {
			name = p[0];
			form = p[1];
			p += 2;
		} else {
			name = uleb(&p, end);
			form = p ? uleb(&p, end) : 0;
			if (!p || name > UINT32_MAX || form > UINT16_MAX)
				return -1;
		}
		if (!name && !form)
			break;
		/* implicit_const's value is in the table (DW_AT_sibling and pcs never use it) */
		if (form == DW_FORM_implicit_const && !(p = pgo_sleb128(p, end, &implicit)))
			return -1;
		info = name_info(name);
		size = form <= DW_FORM_addrx4 ? sizes[form] : form_size(u, (unsigned)form);
		/*
		 * symbolize_die_attrs's lists, of the DIEs symbolization reads (functions):
		 * building them for every abbreviation was a fifth of reading a table.
		 */
		if (a->fn) {
			if (grow(&u->attrs, u->nr_attrs, &al->attrs, sizeof(*u->attrs)) < 0)
				return -1;
			at = &u->attrs[u->nr_attrs++];
			at->form = (uint16_t)form;
			at->size = size;
			at->implicit = implicit;
			at->slot = (int8_t)((int)(info & 0xf) - 1);
		}
		/* pcs of code-bearing DIEs only: call sites and labels have one, unread */
		noted = (info & AT_NOTED) && (name == DW_AT_sibling || pc_tag);
		/*
		 * symbolize_die_read's list: a run of fixed-size attributes it does not note
		 * is one step of their total size. A DIE read was ~175 Ir on graphviz,
		 * most of it the loop over attributes whose values only need skipping.
		 */
		if (size >= 0 && !noted) {
			if (merge && u->steps[u->nr_steps - 1].size <= INT32_MAX - 16 - size) {
				u->steps[u->nr_steps - 1].size += size;
				continue;
			}
			merge = 1;
		} else {
			merge = 0;
		}
		if (grow(&u->steps, u->nr_steps, &al->steps, sizeof(*u->steps)) < 0)
			return -1;
		u->steps[u->nr_steps].name = (uint32_t)name;
		u->steps[u->nr_steps].form = (uint16_t)form;
		u->steps[u->nr_steps].noted = (uint8_t)noted;
		u->steps[u->nr_steps++].size = size;
	}
	*pp = p;
	return 0;
}

/* The abbreviation table at off: codes 1..MAX_CODE. Returns 0, or -1. */
static int read_abbrevs(struct symbolize_dieunit *u, const struct symbolize_dwsecs *s, uint64_t off)
{
	const uint8_t *p, *end = s->abbrev + s->abbrev_size;
	struct abbrev_alloc al = { 0, 0 };
	int8_t sizes[DW_FORM_addrx4 + 1];
	unsigned f;

	if (off >= s->abbrev_size)
		return -1;
	/* the forms' sizes in this unit, looked up per attribute (~22k in graphviz's units) */
	for (f = 0; f <= DW_FORM_addrx4; f++)
		sizes[f] = (int8_t)form_size(u, f);
	p = s->abbrev + off;
	for (;;) {
		uint64_t code = uleb(&p, end), tag;
		struct symbolize_abbrev *a;

		if (!p)
			return -1;
		if (!code)
			return 0;
		tag = uleb(&p, end);
		if (!p || p >= end || code > MAX_CODE || !tag || tag > UINT32_MAX)
			return -1;
		a = abbrev_slot(u, code);
		if (!a)
			return -1;
		if (a->tag)
			return -1;                 /* libdw takes the first; rare enough to leave */
		a->tag = (unsigned)tag;
		a->has_children = *p++ != 0;
		a->fn = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
		a->first = (uint32_t)u->nr_attrs;
		a->sfirst = (uint32_t)u->nr_steps;
		if (read_abbrev_attrs(u, a, &p, end, sizes, a->fn || tag == DW_TAG_lexical_block, &al) < 0)
			return -1;
		a->n = (uint32_t)(u->nr_attrs - a->first);
		a->sn = (uint32_t)(u->nr_steps - a->sfirst);
		a->plain = !a->sn ? 0 : a->sn == 1 && !u->steps[a->sfirst].noted ? u->steps[a->sfirst].size : -1;
	}
}

int symbolize_dieunit_open(struct symbolize_dieunit *u, const struct symbolize_dwsecs *s, Dwarf_Die *cudie)
{
	Dwarf_Off abbrev_off, die_off, next;
	Dwarf_Half version;
	uint8_t unit_type, addr_size, offset_size;
	Dwarf_Die cu;

	memset(u, 0, sizeof(*u));
	if (!s->info || !s->abbrev || !cudie->cu ||
	    dwarf_cu_info(cudie->cu, &version, &unit_type, NULL, NULL, NULL, &addr_size, &offset_size) != 0 ||
	    (unit_type != DW_UT_compile && unit_type != DW_UT_partial) || version < 2 || version > 5 ||
	    (addr_size != 4 && addr_size != 8) || (offset_size != 4 && offset_size != 8) ||
	    !dwarf_cu_die(cudie->cu, &cu, NULL, &abbrev_off, NULL, NULL, NULL, NULL))
		return -1;
	u->dwarf = dwarf_cu_getdwarf(cudie->cu);
	u->cu = cudie->cu;
	die_off = dwarf_dieoffset(cudie);
	u->unit_off = die_off - dwarf_cuoffset(cudie);
	/* the sections libdw reads must be the ones found here */
	if (!u->dwarf || die_off >= s->info_size || (const uint8_t *)cudie->addr != s->info + die_off ||
	    dwarf_next_unit(u->dwarf, u->unit_off, &next, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != 0 ||
	    next > s->info_size || next <= die_off)
		return -1;
	u->info = s->info;
	u->info_size = s->info_size;
	u->end = s->info + next;
	u->version = version;
	u->addr_size = addr_size;
	u->offset_size = offset_size;
	/* a string runs to a NUL: one at the end keeps the last inside the section */
	if (s->str && s->str_size && !s->str[s->str_size - 1]) {
		u->str = (const char *)s->str;
		u->str_size = s->str_size;
	}
	if (s->line_str && s->line_str_size && !s->line_str[s->line_str_size - 1]) {
		u->line_str = (const char *)s->line_str;
		u->line_str_size = s->line_str_size;
	}
	if (version <= 4 && s->ranges) {
		Dwarf_Attribute attr;
		Dwarf_Addr base;

		/* libdw's base for range lists: DW_AT_low_pc, else DW_AT_entry_pc, else 0 */
		if (dwarf_lowpc(&cu, &base) != 0 &&
		    dwarf_formaddr(dwarf_attr(&cu, DW_AT_entry_pc, &attr), &base) != 0)
			base = 0;
		u->ranges = s->ranges;
		u->ranges_size = s->ranges_size;
		u->base = base;
	}
	if (read_abbrevs(u, s, abbrev_off) < 0) {
		symbolize_dieunit_release(u);
		return -1;
	}
	return 0;
}

void symbolize_dieunit_release(struct symbolize_dieunit *u)
{
	free(u->abbrevs);
	free(u->attrs);
	free(u->steps);
	memset(u, 0, sizeof(*u));
}

const uint8_t *symbolize_die_pos(const struct symbolize_dieunit *u, uint64_t off)
{
	const uint8_t *p;

	/* the offset first: a DW_FORM_ref_addr value may be anything, info + off overflow */
	if (off >= u->info_size)
		return NULL;
	p = u->info + off;
	return p > u->info + u->unit_off && p < u->end ? p : NULL;
}

/* A CU-relative reference (ref1..ref_udata) or DW_AT_sibling's target, in the unit. */
static const uint8_t *unit_ref(const struct symbolize_dieunit *u, uint64_t rel)
{
	return rel < (uint64_t)(u->end - (u->info + u->unit_off)) ? symbolize_die_pos(u, u->unit_off + rel)
								    : NULL;
}

/* What a DIE's pc and sibling attributes say, read at p (len bytes of form). 0, or -1. */
static int note(const struct symbolize_dieunit *u, struct symbolize_die *d, unsigned name, unsigned form,
		const uint8_t *p, size_t len, uint64_t value)
{
	switch (name) {
	case DW_AT_sibling:
		if (form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 || form == DW_FORM_ref8)
			value = le(p, (unsigned)len);
		else if (form != DW_FORM_ref_udata)
			return -1;                 /* a sibling elsewhere: let libdw judge it */
		return (d->sibling = unit_ref(u, value)) ? 0 : -1;
	case DW_AT_low_pc:
		d->has_lowpc = 1;
		if (form == DW_FORM_addr) {
			d->lo = le(p, (unsigned)len);
			d->simple_pc |= 1;
		}
		return 0;
	case DW_AT_high_pc:
		d->has_highpc = 1;
		if (form == DW_FORM_addr || form == DW_FORM_data1 || form == DW_FORM_data2 ||
		    form == DW_FORM_data4 || form == DW_FORM_data8 || form == DW_FORM_udata) {
			d->hi = form == DW_FORM_udata ? value : le(p, (unsigned)len);
			/* bit 1: high is an address; bit 2: an offset from low */
			d->simple_pc |= form == DW_FORM_addr ? 2 : 4;
		}
		return 0;
	case DW_AT_ranges:
		if (!d->has_ranges) {
			d->ranges_form = form;
			d->ranges_p = p;
		}
		d->has_ranges = 1;
		return 0;
	default:
		return 0;
	}
}

/* The size of the variable-sized value of form at p (its ULEB in *value), or -1. */
static int64_t var_size(const uint8_t *p, const uint8_t *end, unsigned form, uint64_t *value)
{
	const uint8_t *q = p;
	const uint8_t *nul;

	*value = 0;
	switch (form) {
	case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
	case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		*value = uleb(&q, end);
		return q ? q - p : -1;
	case DW_FORM_string:
		nul = memchr(p, 0, (size_t)(end - p));
		return nul ? nul - p + 1 : -1;
	case DW_FORM_block1:
		return p < end ? 1 + (int64_t)p[0] : -1;
	case DW_FORM_block2:
		return end - p >= 2 ? 2 + (int64_t)le(p, 2) : -1;
	case DW_FORM_block4:
		return end - p >= 4 ? 4 + (int64_t)le(p, 4) : -1;
	case DW_FORM_block: case DW_FORM_exprloc:
		*value = uleb(&q, end);
		return q && *value <= (uint64_t)(end - q) ? (q - p) + (int64_t)*value : -1;
	default:
		return -1;                         /* DW_FORM_indirect and anything newer: libdw's */
	}
}

int symbolize_die_read_attrs(const struct symbolize_dieunit *u, const struct symbolize_abbrev *a, const uint8_t *p,
			   struct symbolize_die *d)
{
	const struct symbolize_die_step *at;
	const uint8_t *end = u->end;
	uint32_t i;

	for (i = 0, at = u->steps + a->sfirst; i < a->sn; i++, at++) {
		uint64_t value = 0;
		int64_t len = at->size >= 0 ? at->size : var_size(p, end, at->form, &value);

		if (len < 0 || len > end - p ||
		    (at->noted && note(u, d, at->name, at->form, p, (size_t)len, value) < 0))
			return -1;
		p += len;
	}
	d->attrs_end = p;
	if (d->sibling && d->sibling <= d->attrs_end)
		return -1;                         /* not forward: let libdw judge it */
	/* dwarf_ranges takes the DIE's own pair first; an offset high pc counts from low */
	if (d->simple_pc == (1 | 4))
		d->hi += d->lo;
	d->simple_pc = d->simple_pc == (1 | 2) || d->simple_pc == (1 | 4);
	return 1;
}

int symbolize_die_read_any(const struct symbolize_dieunit *u, const uint8_t *p, struct symbolize_die *d)
{
	const struct symbolize_abbrev *a;
	const uint8_t *end = u->end;
	uint64_t code;

	memset(d, 0, sizeof(*d));
	d->p = p;
	code = uleb(&p, end);
	if (!p)
		return -1;
	if (!code) {
		d->attrs_end = p;
		return 0;
	}
	if (code >= u->nr_abbrevs || !(a = &u->abbrevs[code])->tag)
		return -1;
	d->tag = a->tag;
	d->has_children = a->has_children;
	/*
	 * Most DIEs a walk passes (types, members, parameters) have fixed-size attributes
	 * only, none of those noted: their end is a sum known from the abbreviation.
	 */
	if (a->plain >= 0) {
		if (a->plain > end - p)
			return -1;
		d->attrs_end = p + a->plain;
		return 1;
	}
	return symbolize_die_read_attrs(u, a, p, d);
}

const uint8_t *symbolize_die_skip(const struct symbolize_dieunit *u, const struct symbolize_die *d)
{
	const uint8_t *p;
	struct symbolize_die c;
	size_t level = 1;

	if (d->sibling)
		return d->sibling;
	if (!d->has_children)
		return d->attrs_end;
	/* its children and theirs, down and up again to the null entry that ends its list */
	for (p = d->attrs_end; level > 0;) {
		int r = symbolize_die_read(u, p, &c);

		if (r < 0)
			return NULL;
		if (r == 0)
			level--;
		else if (!c.sibling && c.has_children)
			level++;
		p = r > 0 && c.sibling ? c.sibling : c.attrs_end;
	}
	return p;
}

int symbolize_die_ranges(const struct symbolize_dieunit *u, const struct symbolize_die *d,
		       int (*fn)(void *arg, uint64_t lo, uint64_t hi), void *arg)
{
	unsigned w = u->addr_size;
	uint64_t off, base = u->base, escape = w == 8 ? UINT64_MAX : UINT32_MAX;
	const uint8_t *p, *end;
	int err;

	if (!u->ranges || !d->has_ranges || d->has_lowpc || d->has_highpc)
		return 0;
	/* the list's offset, as libdw's __libdw_formptr reads it */
	if (d->ranges_form == DW_FORM_sec_offset && u->version == 4)
		off = le(d->ranges_p, u->offset_size);
	else if ((d->ranges_form == DW_FORM_data4 || d->ranges_form == DW_FORM_data8) && u->version < 4)
		off = le(d->ranges_p, d->ranges_form == DW_FORM_data4 ? 4 : 8);
	else
		return 0;
	/* an offset outside the section or an all-ones base: dwarf_ranges fails, no ranges */
	if (off >= u->ranges_size || base == UINT64_MAX)
		return 1;
	end = u->ranges + u->ranges_size;
	for (p = u->ranges + off; end - p >= 2 * (ptrdiff_t)w; p += 2 * w) {
		uint64_t begin = le(p, w), last = le(p + w, w);

		if (begin == escape) {
			if (last == escape)
				break;             /* invalid: libdw stops */
			base = last;
			continue;
		}
		if (!begin && !last)
			break;
		if ((err = fn(arg, begin + base, last + base)) < 0)
			return err;
	}
	return 1;
}

int symbolize_die_libdw(const struct symbolize_dieunit *u, const uint8_t *p, Dwarf_Die *out)
{
	if (p > u->info + u->unit_off && p < u->end) {
		memset(out, 0, sizeof(*out));
		out->addr = (void *)(uintptr_t)p;
		out->cu = u->cu;
		return 0;
	}
	return dwarf_offdie(u->dwarf, symbolize_die_offset(u, p), out) ? 0 : -1;
}

int symbolize_die_attrs(const struct symbolize_dieunit *u, const uint8_t *p, struct symbolize_die_attrs *a)
{
	const struct symbolize_abbrev *ab;
	const struct convert_abbrev_attr *at;
	const uint8_t *end = u->end;
	uint64_t code;
	uint32_t i;

	memset(a, 0, sizeof(*a));
	code = uleb(&p, end);
	if (!p || !code || code >= u->nr_abbrevs || !(ab = &u->abbrevs[code])->tag || !ab->fn)
		return -1;
	a->tag = ab->tag;
	for (i = 0, at = u->attrs + ab->first; i < ab->n; i++, at++) {
		uint64_t value;
		int64_t len = at->size >= 0 ? at->size : var_size(p, end, at->form, &value);

		if (len < 0 || len > end - p)
			return -1;
		if (at->slot >= 0 && !a->at[at->slot].form) {
			a->at[at->slot].form = at->form;
			a->at[at->slot].p = p;
			a->at[at->slot].implicit = at->implicit;
		}
		p += len;
	}
	return 1;
}

int symbolize_die_udata(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a, uint64_t *v)
{
	const uint8_t *p = a->p;

	/* the DIE was read whole: every value lies inside the unit */
	switch (a->form) {
	case DW_FORM_data1: *v = p[0]; return 0;
	case DW_FORM_data2: *v = le(p, 2); return 0;
	case DW_FORM_data4: *v = le(p, 4); return 0;
	case DW_FORM_data8: *v = le(p, 8); return 0;
	case DW_FORM_udata: *v = uleb(&p, u->end); return 0;
	case DW_FORM_implicit_const: *v = (uint64_t)a->implicit; return 0;
	default: return -1;
	}
}

int symbolize_die_addr(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a, uint64_t *v)
{
	if (!a->form)
		return 0;
	if (a->form != DW_FORM_addr)
		return -1;
	*v = le(a->p, u->addr_size);
	return 1;
}

const char *symbolize_die_string(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a)
{
	uint64_t off;

	switch (a->form) {
	case DW_FORM_string:
		return (const char *)a->p;
	case DW_FORM_strp:
		off = le(a->p, u->offset_size);
		return u->str && off < u->str_size ? u->str + off : NULL;
	case DW_FORM_line_strp:
		off = le(a->p, u->offset_size);
		return u->line_str && off < u->line_str_size ? u->line_str + off : NULL;
	default:
		return NULL;
	}
}

const uint8_t *symbolize_die_ref(const struct symbolize_dieunit *u, const struct symbolize_die_attr *a)
{
	const uint8_t *p = a->p;

	switch (a->form) {
	case DW_FORM_ref1: return unit_ref(u, p[0]);
	case DW_FORM_ref2: return unit_ref(u, le(p, 2));
	case DW_FORM_ref4: return unit_ref(u, le(p, 4));
	case DW_FORM_ref8: return unit_ref(u, le(p, 8));
	case DW_FORM_ref_udata: return unit_ref(u, uleb(&p, u->end));
	case DW_FORM_ref_addr:
		/* into .debug_info: followed here only inside the unit */
		return symbolize_die_pos(u, le(p, u->version == 2 ? u->addr_size : u->offset_size));
	default:
		return NULL;
	}
}
