// SPDX-License-Identifier: MIT
/*
 * What a subprogram or inlined-subroutine DIE gives a frame (symbolize/symtab_internal.h):
 * its name, declaration line, unit and call site, read through symbolize/dies.h where it
 * can and libdw where not, once per DIE.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symtab_internal.h"
#include "lib/alloc.h"

static uint32_t die_name(struct symbolize_symtab *st, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		s = dwarf_formstring(&attr);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &attr))
		s = dwarf_formstring(&attr);
	return symbolize_symtab_intern(st, s ? s : "[unknown]");
}

static uint32_t die_udata(Dwarf_Die *die, unsigned int at, int integrate)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (!(integrate ? dwarf_attr_integrate(die, at, &attr) : dwarf_attr(die, at, &attr)))
		return 0;
	if (dwarf_formudata(&attr, &w) != 0)
		return 0;
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

static void read_call(struct symbolize_symtab *st, Dwarf_Die *cudie, Dwarf_Die *inl, struct die_info *d)
{
	Dwarf_Attribute attr;

	d->call_file = dwarf_attr(inl, DW_AT_call_file, &attr)
		       ? symbolize_symtab_file_of_index(st, cudie, die_udata(inl, DW_AT_call_file, 0)) : SYMBOLIZE_NO_NAME;
	d->call_line = die_udata(inl, DW_AT_call_line, 0);
	d->call_discr = die_udata(inl, DW_AT_GNU_discriminator, 0);
	d->has_call = 1;
}


/*
 * The line gcc gives a member function that has no DW_AT_decl_line of its own: a lambda's
 * operator() (artificial, no declaration) and the members the compiler defines (copy
 * constructors, destructors) take the location of their class, and so do their offsets
 * in gcc's profile reader. The class is the type `this` points to (DW_AT_object_pointer).
 * 0 if die has no such parameter.
 */
static uint32_t class_decl_line(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die d;
	int i;

	if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_object_pointer, &attr), &d))
		return 0;
	for (i = 0; i < 8 && dwarf_formref_die(dwarf_attr(&d, DW_AT_type, &attr), &d); i++) {
		switch (dwarf_tag(&d)) {
		case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_pointer_type:
		case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
		case DW_TAG_restrict_type: case DW_TAG_typedef:
			continue;
		case DW_TAG_class_type: case DW_TAG_structure_type: case DW_TAG_union_type:
			return die_udata(&d, DW_AT_decl_line, 1);
		default:
			return 0;
		}
	}
	return 0;
}

/*
 * The compile unit die belongs to, as symbolize_sym_frame.unit; 0 if that says nothing about
 * where its function was compiled: a partial unit (dwz moves DIEs several units share
 * there), or one of gcc's link-time units ("<artificial>"), which hold the out-of-line
 * clones LTO makes (foo.isra.0) under declarations of their own, with no way back to the
 * unit of foo.
 */
static uint32_t unit_of_die(const struct symbolize_symtab *st, Dwarf_Die *die)
{
	Dwarf_Die cu;
	const char *name;
	uint64_t off;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_tag(&cu) != DW_TAG_compile_unit ||
	    ((name = dwarf_diename(&cu)) && !strcmp(name, "<artificial>")))
		return 0;
	off = dwarf_dieoffset(&cu);
	/* a split unit's offset is its .dwo's, the same in every .dwo: tell them apart by
	 * where libdw holds the DIE instead */
	if (dwarf_cu_getdwarf(cu.cu) != st->dwarf)
		off = (uint64_t)(uintptr_t)cu.addr >> 3;
	/* the unit DIE follows the unit's header: never 0 */
	return (uint32_t)off ? (uint32_t)off : 1;
}

/*
 * The key of a DIE in the caches: where libdw holds it, which tells apart DIEs of the
 * binary, of a dwz file and of each .dwo of -gsplit-dwarf (their offsets repeat).
 */
static uint64_t die_key(const Dwarf_Die *die)
{
	return (uint64_t)(uintptr_t)die->addr;
}

/*
 * Name and DW_AT_decl_line of die. An instance (inlined, or an out-of-line copy) that has
 * neither itself takes its abstract origin's, which dwarf_attr_integrate would reach by
 * following DW_AT_abstract_origin for each attribute: the origin is read once for all its
 * instances (sqlite3VdbeExec has thousands; following them was 8% of a convert).
 */
static void read_name(struct symbolize_symtab *st, Dwarf_Die *die, int depth, uint32_t *name,
		      uint32_t *decl_line, uint32_t *unit)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	if (depth < 8 && dwarf_hasattr(die, DW_AT_abstract_origin) &&
	    !dwarf_hasattr(die, DW_AT_linkage_name) && !dwarf_hasattr(die, DW_AT_MIPS_linkage_name) &&
	    !dwarf_hasattr(die, DW_AT_name) && !dwarf_hasattr(die, DW_AT_decl_line) &&
	    dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attr), &origin) &&
	    /* an origin in the same file (not a dwz alt file's) */
	    dwarf_cu_getdwarf(origin.cu) == dwarf_cu_getdwarf(die->cu)) {
		struct die_info tmp;
		const struct die_info *o = symbolize_symtab_fn_info(st, SIZE_MAX, &origin, NULL, 0,
								     depth + 1, &tmp, NULL);

		*name = o->name;
		*decl_line = o->decl_line;
		*unit = o->unit;
		return;
	}
	*unit = unit_of_die(st, die);
	*name = die_name(st, die);
	*decl_line = die_udata(die, DW_AT_decl_line, 1);
	if (!*decl_line && !dwarf_hasattr_integrate(die, DW_AT_decl_line))
		*decl_line = class_decl_line(die);
}

/* Unit cu's DIEs as symbolize/dies.h reads them (its scope tree's), or NULL. */
static const struct symbolize_dieunit *own_unit(const struct symbolize_symtab *st, size_t cu)
{
	return cu < st->nr_cus && st->have_tree[cu] ? st->trees[cu].unit : NULL;
}

/* Where die is in u's data, or NULL if in another unit or file. */
static const uint8_t *own_pos(const struct symbolize_dieunit *u, const Dwarf_Die *die)
{
	uintptr_t a = (uintptr_t)die->addr;

	return a > (uintptr_t)(u->info + u->unit_off) && a < (uintptr_t)u->end ? die->addr : NULL;
}

/* unit_of_die for the DIEs of unit cu, the same for all of them: asked once. */
static uint32_t own_unit_id(struct symbolize_symtab *st, size_t cu)
{
	if (!st->unit_ids && !(st->unit_ids = calloc(st->nr_cus, sizeof(*st->unit_ids))))
		return unit_of_die(st, &st->scope_dies[cu]);
	if (!st->unit_ids[cu])
		st->unit_ids[cu] = (uint64_t)unit_of_die(st, &st->scope_dies[cu]) + 1;
	return (uint32_t)(st->unit_ids[cu] - 1);
}

static uint32_t clamp_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * The DIEs dwarf_attr_integrate looks at: the DIE and up to 16 references along the chain
 * of its origins/specifications (libdw's `chain = 16` ... `while (chain-- != 0)`: 17 DIEs).
 */
#define INTEGRATE_MAX 17

int symbolize_symtab_die_name(const struct symbolize_dieunit *u, const struct symbolize_die_attrs *a,
			      const char **name, uint64_t *decl_line, int *has_decl_line, int *hops)
{
	enum { LINK, MIPS, NAME, DECL, NR };
	static const int slot[NR] = { SYMBOLIZE_AT_LINKAGE_NAME, SYMBOLIZE_AT_MIPS_LINKAGE_NAME,
				      SYMBOLIZE_AT_NAME, SYMBOLIZE_AT_DECL_LINE };
	struct symbolize_die_attr got[NR];
	struct symbolize_die_attrs next;
	const char *s = NULL;
	const uint8_t *q;
	uint64_t line = 0;
	int i, k, missing = NR, n = 0;

	/* each attribute from the first DIE of the chain that has it, as dwarf_attr_integrate */
	memset(got, 0, sizeof(got));
	for (i = 0;;) {
		const struct symbolize_die_attr *ref;

		for (k = 0; k < NR; k++)
			if (!got[k].form && a->at[slot[k]].form) {
				got[k] = a->at[slot[k]];
				missing--;
			}
		if (!missing || ++i == INTEGRATE_MAX)
			break;
		ref = a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN].form ? &a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN]
			: a->at[SYMBOLIZE_AT_SPECIFICATION].form ? &a->at[SYMBOLIZE_AT_SPECIFICATION] : NULL;
		if (!ref)
			break;
		if (!(q = symbolize_die_ref(u, ref)) || symbolize_die_attrs(u, q, &next) < 0)
			return -1;
		a = &next;
		n++;
	}
	/* die_name: the linkage name (DW_AT_linkage_name's chain first), else the name */
	if (got[LINK].form || got[MIPS].form) {
		if (!(s = symbolize_die_string(u, got[LINK].form ? &got[LINK] : &got[MIPS])))
			return -1;
	} else if (got[NAME].form && !(s = symbolize_die_string(u, &got[NAME]))) {
		return -1;
	}
	if (got[DECL].form && symbolize_die_udata(u, &got[DECL], &line) < 0)
		return -1;
	*name = s;
	*decl_line = line;
	*has_decl_line = got[DECL].form != 0;
	*hops = n;
	return 0;
}

/*
 * read_name for the DIE at p of unit cu (attributes a), from what symbolize/dies.h reads:
 * the same answers with one pass over each DIE's attributes instead of a libdw scan for
 * each attribute. Returns 0, or -1 where a form or a reference is libdw's to read.
 */
static int own_name(struct symbolize_symtab *st, size_t cu, const struct symbolize_dieunit *u,
		    const uint8_t *p, const struct symbolize_die_attrs *a, int depth, uint32_t *name,
		    uint32_t *decl_line, uint32_t *unit)
{
	const char *s;
	uint64_t line;
	int has_line, hops;

	if (depth < 8 && a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN].form && !a->at[SYMBOLIZE_AT_LINKAGE_NAME].form &&
	    !a->at[SYMBOLIZE_AT_MIPS_LINKAGE_NAME].form && !a->at[SYMBOLIZE_AT_NAME].form &&
	    !a->at[SYMBOLIZE_AT_DECL_LINE].form) {
		const uint8_t *o = symbolize_die_ref(u, &a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN]);
		struct die_info tmp;
		const struct die_info *d;

		if (!o)
			return -1;
		d = symbolize_symtab_fn_info(st, cu, NULL, o, 0, depth + 1, &tmp, NULL);
		*name = d->name;
		*decl_line = d->decl_line;
		*unit = d->unit;
		return 0;
	}
	if (symbolize_symtab_die_name(u, a, &s, &line, &has_line, &hops) < 0)
		return -1;
	*unit = own_unit_id(st, cu);
	*name = symbolize_symtab_intern(st, s ? s : "[unknown]");
	*decl_line = clamp_u32(line);
	if (!has_line) {
		Dwarf_Die die;

		*decl_line = symbolize_die_libdw(u, p, &die) == 0 ? class_decl_line(&die) : 0;
	}
	return 0;
}

/* read_call for the DIE at p of unit cu (attributes a). Returns 0, or -1 as own_name. */
static int own_call(struct symbolize_symtab *st, size_t cu, const struct symbolize_dieunit *u,
		    const struct symbolize_die_attrs *a, struct die_info *d)
{
	const struct symbolize_die_attr *file = &a->at[SYMBOLIZE_AT_CALL_FILE];
	const struct symbolize_die_attr *line = &a->at[SYMBOLIZE_AT_CALL_LINE];
	const struct symbolize_die_attr *discr = &a->at[SYMBOLIZE_AT_DISCRIMINATOR];
	uint64_t f = 0, l = 0, c = 0;

	if ((file->form && symbolize_die_udata(u, file, &f) < 0) ||
	    (line->form && symbolize_die_udata(u, line, &l) < 0) ||
	    (discr->form && symbolize_die_udata(u, discr, &c) < 0))
		return -1;
	d->call_file = file->form ? symbolize_symtab_file_of_index(st, &st->cus[cu], clamp_u32(f)) : SYMBOLIZE_NO_NAME;
	d->call_line = clamp_u32(l);
	d->call_discr = clamp_u32(c);
	d->has_call = 1;
	return 0;
}

/*
 * Name and DW_AT_decl_line of a subprogram or inlined-subroutine DIE, and the call site
 * of an inlined one (DW_AT_call_*), once per DIE: the names follow
 * DW_AT_abstract_origin/DW_AT_specification, and every line address of a function (the
 * explicit zeros) resolves the same few DIEs again; that lookup was a third of
 * convert's instructions on a 2777-sample recording. *tmp receives the result when it
 * cannot be kept (out of memory). The pointer is valid until the next call.
 * The DIE is die, of unit cu (SIZE_MAX: not known), or the one at p of unit cu as
 * symbolize/dies.h reads it (die NULL). need_call: read the call site too (die and cu
 * given); depth: how many abstract origins led here.
 */
struct die_info *symbolize_symtab_fn_info(struct symbolize_symtab *st, size_t cu, Dwarf_Die *die, const uint8_t *p,
				int need_call, int depth, struct die_info *tmp, uint32_t *slot)
{
	const struct symbolize_dieunit *u = own_unit(st, cu);
	struct symbolize_die_attrs a;
	struct die_info *d = tmp;
	uint64_t off, *v;
	const uint64_t *have = NULL;
	uint32_t name, decl_line, unit;
	Dwarf_Die mem;
	int ret, read = -1;            /* a: 1 read, -1 not (yet) */

	if (!p && u)
		p = own_pos(u, die);
	off = p ? (uint64_t)(uintptr_t)p : die_key(die);
	if (!slot)
		have = pgo_u64map_find(&st->fn_dies, off);
	/* a 0 slot: the DIE could not be kept (out of memory), read it again */
	if (slot ? *slot : have && *have) {
		d = &st->dies[(slot ? *slot : *have) - 1];
	} else {
		/* before taking a slot: reading an origin adds DIEs and moves st->dies */
		if (!p || (read = symbolize_die_attrs(u, p, &a)) < 0 ||
		    own_name(st, cu, u, p, &a, depth, &name, &decl_line, &unit) < 0) {
			if (die || symbolize_die_libdw(u, p, die = &mem) == 0) {
				read_name(st, die, depth, &name, &decl_line, &unit);
			} else {
				/* not for libdw either: as a DIE without attributes */
				name = symbolize_symtab_intern(st, "[unknown]");
				decl_line = unit = 0;
			}
		}
		ret = slot ? 1 : pgo_u64map_get(&st->fn_dies, off, &v);
		if (ret >= 0 && PGO_ALLOC_GROW_UNINIT(st->dies, st->nr_dies + 1, st->alloc_dies) == 0) {
			d = &st->dies[st->nr_dies++];
			if (slot)
				*slot = (uint32_t)st->nr_dies;
			else
				*v = st->nr_dies;
		} else if (ret >= 0 && !slot) {
			*v = 0;
		}
		memset(d, 0, sizeof(*d));
		d->name = name;
		d->decl_line = decl_line;
		d->unit = unit;
	}
	if (need_call && !d->has_call &&
	    !(p && (read > 0 || symbolize_die_attrs(u, p, &a) > 0) && own_call(st, cu, u, &a, d) == 0))
		read_call(st, &st->cus[cu], die, d);
	return d;
}

uint64_t symbolize_symtab_inline_entry(struct symbolize_symtab *st, uint64_t inl)
{
	size_t cu = (size_t)(inl >> INL_UNIT_SHIFT) - 1;
	const struct symbolize_dieunit *u = own_unit(st, cu);
	struct symbolize_die_attrs a;
	const uint8_t *p;
	Dwarf_Die die;
	Dwarf_Addr e;
	uint64_t *v, entry = 0;
	int ret, r;

	if (!inl || !st->dwarf)
		return 0;
	ret = pgo_u64map_get(&st->inl_entries, inl, &v);
	if (ret == 0)
		return *v - 1;
	/*
	 * dwarf_entrypc: DW_AT_entry_pc, else DW_AT_low_pc. Read by symbolize/dies.h where it
	 * can: libdw's first look at a unit's DIE reads its abbreviations again, 10k Ir a
	 * call on graphviz.
	 */
	if (u && (p = symbolize_die_pos(u, inl & INL_OFF_MASK)) && symbolize_die_attrs(u, p, &a) > 0 &&
	    (r = symbolize_die_addr(u, a.at[SYMBOLIZE_AT_ENTRY_PC].form ? &a.at[SYMBOLIZE_AT_ENTRY_PC]
				  : &a.at[SYMBOLIZE_AT_LOW_PC], &e)) >= 0) {
		if (r > 0)
			entry = e + st->dwbias;
	} else if (cu < st->nr_cus &&
		   dwarf_offdie(dwarf_cu_getdwarf(st->scope_dies[cu].cu), inl & INL_OFF_MASK, &die) &&
		   dwarf_entrypc(&die, &e) == 0) {
		entry = e + st->dwbias;
	}
	if (ret > 0)
		*v = entry + 1;
	return entry;
}
