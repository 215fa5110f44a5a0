/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files of the symbolizer (symbolize/symtab.h is its contract):
 * the open binary's layout, and the steps one file of it takes from another. Not a
 * contract for anything outside symbolize/symtab*.c.
 *
 *   symtab.c         open and free: the ELF file, its segments, symbols and units
 *   symtab_funcs.c   what a function's DIE gives a frame (name, declaration line, call site)
 *   symtab_lookup.c  address -> symbol and inline chain, line tables, the walks over lines
 *
 * Ownership: everything hangs off struct symbolize_symtab and is freed by
 * symbolize_symtab_free(). Names are ids in the caller's pgo_strtab (st->names).
 */
#ifndef PGO_SYMBOLIZE_SYMTAB_INTERNAL_H
#define PGO_SYMBOLIZE_SYMTAB_INTERNAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "symbolize/dies.h"
#include "symbolize/linetab.h"
#include "symbolize/scopetree.h"
#include "symbolize/symtab.h"
#include "lib/hashmap.h"

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

struct seg {
	uint64_t offset, filesz, vaddr;
	int exec;
};

/* CU address ranges: clang emits no .debug_aranges, which dwfl_module_addrdie needs */
struct cu_range {
	uint64_t lo, hi;
	uint32_t cu;
};

/* ELF function symbols sorted by address: dwfl_module_addrinfo scans all symbols per call */
struct fsym {
	uint64_t start, size;
	uint32_t name;
	int rank;                      /* which of several symbols at one address wins */
};

/* What a subprogram or inlined-subroutine DIE gives a frame, read once per DIE. */
struct die_info {
	uint32_t name, decl_line, unit;
	uint32_t call_file, call_line, call_discr; /* inlined subroutines, once has_call */
	int has_call;
};

/* A unit's line table: ours (symbolize/linetab.h), or libdw's where ours cannot read it. */
enum { LINES_UNREAD, LINES_OURS, LINES_LIBDW };
#define FILE_UNSET (SYMBOLIZE_NO_NAME - 1)

struct cu_lines {
	struct symbolize_linetab t;
	uint32_t *file_ids;            /* file index -> name id, FILE_UNSET until needed */
	int state;
};

#define MAX_DEPTH 64   /* scopes of an inline chain kept */

/* The last inline chain read: it holds for [lo, end) of unit cu (symbolize_scopetree_chain). */
struct span {
	size_t cu;
	Dwarf_Addr lo, end;
	int valid, nr;
	uint64_t gen;                 /* counts the chains read */
	struct symbolize_sym_frame frames[MAX_DEPTH];
};

struct cached {
	uint32_t sym_name;
	uint64_t sym_start, sym_size;
	uint32_t first, nr;
};

struct symbolize_symtab {
	char *path;
	struct pgo_strtab *names;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	Dwarf *dwarf;
	Dwarf_Addr dwbias;
	const uint8_t *build_id;
	int build_id_len;
	int is_dyn;
	int machine;                  /* e_machine */
	struct seg *segs;
	size_t nr_segs, alloc_segs;
	struct pgo_u64map cache;      /* addr -> index + 1 into results */
	struct cached *results;
	size_t nr_results, alloc_results;
	struct symbolize_sym_frame *frames;
	size_t nr_frames, alloc_frames;
	struct fsym *syms;
	size_t nr_syms, alloc_syms;
	uint32_t *sym_buckets;        /* bucket b: the first symbol at or above syms[0].start +
					 (b << sym_shift); nr_sym_buckets + 1 of them, or NULL */
	size_t nr_sym_buckets;
	unsigned sym_shift;
	Dwarf_Die *cus;               /* per unit: its DIE in the binary (ranges, line table) */
	Dwarf_Die *scope_dies;        /* per unit: the DIE its scopes hang from, the split unit's
					 in its .dwo for a skeleton (-gsplit-dwarf), else cus[i] */
	size_t nr_cus, alloc_cus, alloc_scope_dies;
	size_t nr_skeletons, nr_no_dwo; /* split units, and those whose .dwo was not found */
	char *no_dwo;                 /* the first of those: its .dwo's path */
	struct cu_range *ranges;
	size_t nr_ranges, alloc_ranges;
	size_t last_range;            /* cu_of's last answer */
	struct symbolize_scopetree *trees; /* per CU, read on its first lookup */
	unsigned char *have_tree;
	struct symbolize_dwsecs secs;
	int have_secs;
	struct cu_lines *lines;       /* per CU, read on its first lookup */
	struct symbolize_linerange *want; /* symbolize_symtab_want(): unit addresses, sorted, disjoint */
	size_t nr_want;
	struct span span;
	struct pgo_u64map fn_dies;    /* function DIE (die_key) -> index + 1 into dies */
	struct pgo_u64map inl_entries; /* frame.inl -> its entry + 1 */
	struct die_info *dies;
	size_t nr_dies, alloc_dies;
	struct pgo_u64map file_ids;   /* libdw's file name pointer -> name id */
	uint64_t *unit_ids;           /* per unit: own_unit_id + 1, 0 until asked */
};

/* frame.inl: the DIE's offset in the file that holds the unit's scopes, and the unit + 1 */
#define INL_UNIT_SHIFT 40
#define INL_OFF_MASK ((1ULL << INL_UNIT_SHIFT) - 1)

/* The name id of s in st->names (symtab.c). */
uint32_t symbolize_symtab_intern(struct symbolize_symtab *st, const char *s);

/* File index idx of unit cudie's file table as a name id (symtab_lookup.c). */
uint32_t symbolize_symtab_file_of_index(struct symbolize_symtab *st, Dwarf_Die *cudie, uint32_t idx);

/*
 * Name, declaration line, unit and call site of a subprogram or inlined-subroutine DIE,
 * once per DIE (symtab_funcs.c, whose comment gives the arguments). The pointer is valid
 * until the next call.
 */
struct die_info *symbolize_symtab_fn_info(struct symbolize_symtab *st, size_t cu, Dwarf_Die *die,
					  const uint8_t *p, int need_call, int depth,
					  struct die_info *tmp, uint32_t *slot);

#endif
