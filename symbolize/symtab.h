/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer: one ELF file (executable or shared library) opened with libdwfl,
 * its debug info found in the file, through .gnu_debuglink or /usr/lib/debug/.build-id
 * (libdwfl's standard callbacks). Addresses are link-time virtual addresses (what
 * the ELF symbols and DWARF say), never runtime addresses.
 *
 * symbolize_symtab_lookup() resolves an address to its ELF symbol (which may be a clone
 * such as foo.constprop.0) and its inline chain, outermost function first; each
 * result is cached, so every address is resolved once. Strings are interned in the
 * caller's pgo_strtab, which must outlive the symtab.
 */
#ifndef PGO_SYMBOLIZE_SYMTAB_H
#define PGO_SYMBOLIZE_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct pgo_strtab;
struct symbolize_symtab;

#define SYMBOLIZE_NO_NAME UINT32_MAX

/*
 * One level of the inline chain. For the innermost frame, line/discr are those of the
 * address (line table); for an outer frame they are the call site of the next inner
 * frame (DW_AT_call_line and its discriminator).
 */
struct symbolize_sym_frame {
	uint32_t name;        /* DW_AT_linkage_name, else DW_AT_name (abstract origin followed) */
	uint32_t file;        /* source file of line, SYMBOLIZE_NO_NAME if unknown */
	uint32_t line;
	uint32_t discr;
	uint32_t start_line;  /* DW_AT_decl_line of the function (its abstract origin) */
	uint32_t unit;        /* the compile unit that defines the function (its abstract
				 origin's; low 32 bits of the unit's offset), 0 if unknown: an
				 inlined frame whose unit differs from its caller's was inlined
				 across units, which only LTO does */
	uint64_t inl;         /* an inlined frame: a handle of its DW_TAG_inlined_subroutine,
				 for symbolize_symtab_inline_entry(); 0 for the outermost frame */
};

struct symbolize_sym {
	uint32_t sym_name;    /* ELF symbol name, SYMBOLIZE_NO_NAME if none covers the address */
	uint64_t sym_start, sym_size;
	uint32_t nr_frames;   /* 0: no line/scope information for this address */
	const struct symbolize_sym_frame *frames; /* outermost first */
};

#define SYMBOLIZE_SYMTAB_NEED_DWARF 1 /* fail (saying "build with -g") without debug info */
#define SYMBOLIZE_SYMTAB_QUIET 2      /* failures are debug messages, not errors */

/* Call fn(name, data) for every function symbol (STT_FUNC, defined); 0 from fn goes on. */
int symbolize_symtab_foreach_function(const struct symbolize_symtab *st,
				    int (*fn)(uint32_t name, void *data), void *data);

/*
 * Where the inlined copy of frame.inl begins: its DW_AT_entry_pc, else its DW_AT_low_pc,
 * as a link-time address; 0 if unknown. Read when first asked, then cached.
 */
uint64_t symbolize_symtab_inline_entry(struct symbolize_symtab *st, uint64_t inl);

/*
 * Open `path` with SYMBOLIZE_SYMTAB_* flags. Reports and returns -1 if the file cannot be
 * read as ELF (or has no debug info and NEED_DWARF is set).
 */
int symbolize_symtab_open(const char *path, struct pgo_strtab *names, int flags,
			struct symbolize_symtab **out);
void symbolize_symtab_free(struct symbolize_symtab *st);

int symbolize_symtab_has_dwarf(const struct symbolize_symtab *st);
/* Build-id of the ELF file; returns its length (0 if none). *id is borrowed. */
int symbolize_symtab_build_id(const struct symbolize_symtab *st, const uint8_t **id);
/* ET_EXEC (fixed addresses) vs ET_DYN (PIE, shared library). */
int symbolize_symtab_is_pie_or_dso(const struct symbolize_symtab *st);
/* The ELF header's e_machine (EM_X86_64, EM_AARCH64, ...). */
int symbolize_symtab_machine(const struct symbolize_symtab *st);

/*
 * Call fn(producer, data) with the DW_AT_producer of each compile unit that has one ("GNU
 * C17 14.2.0 -mtune=generic -O2 -g", "GNU GIMPLE 16.2.0 ..."); 0 from fn goes on. Returns 0
 * or the first non-zero value of fn.
 */
int symbolize_symtab_foreach_producer(const struct symbolize_symtab *st,
				      int (*fn)(const char *producer, void *data), void *data);

/*
 * File offset (what MMAP pgoff gives) -> link-time vaddr through the PT_LOAD segment
 * that contains it. Returns 0, or -1 (no report) if no segment contains it.
 */
int symbolize_symtab_offset_to_vaddr(const struct symbolize_symtab *st, uint64_t off, uint64_t *vaddr);

/*
 * The file's contents at link-time vaddr, borrowed for the symtab's life, and in *avail
 * how many bytes follow in its segment; NULL (and 0) if no segment holds vaddr.
 */
const void *symbolize_symtab_bytes(const struct symbolize_symtab *st, uint64_t vaddr, size_t *avail);
/* Copy len bytes of the file's contents at link-time vaddr. Returns 0, or -1 (no report). */
int symbolize_symtab_read(const struct symbolize_symtab *st, uint64_t vaddr, void *buf, size_t len);

/*
 * Is the instruction that ends right before ret (a return address) an indirect call
 * (x86-64 FF /2, register or memory operand)? 0 if not or if it cannot be told.
 */
int symbolize_symtab_is_indirect_call(const struct symbolize_symtab *st, uint64_t ret);

/*
 * Has the function containing addr (an ELF symbol) set up a frame pointer by addr
 * (a mov %rsp,%rbp among its first instructions, and addr past it)? If not, a
 * frame-pointer stack's next return address is not its caller's. x86-64 only.
 */
int symbolize_symtab_frame_ready(struct symbolize_symtab *st, uint64_t addr);

/*
 * The addresses lookups will ask about, as a hint: line tables read from now on keep only
 * the rows of the functions (ELF symbols) that hold them (symbolize/linetab.h), so that a
 * program built as one large unit does not keep a row for each of its instructions. A
 * lookup or walk elsewhere still gets the right answer: its unit's table is read again
 * whole. Each call replaces the last hint; n = 0 drops it. Returns 0, or -1 when out of
 * memory (reported).
 */
int symbolize_symtab_want(struct symbolize_symtab *st, const uint64_t *addrs, size_t n);

/*
 * Resolve addr. The result is borrowed and valid until the next lookup (copy what you
 * keep). Never NULL; unresolved addresses have sym_name SYMBOLIZE_NO_NAME and no frames.
 */
struct symbolize_sym symbolize_symtab_lookup(struct symbolize_symtab *st, uint64_t addr);

/*
 * Call fn(sym, data) once for every line-table address in [start, start + size), with
 * what symbolize_symtab_lookup would give for it, for explicit zero counts. Results are not
 * cached (each address is seen once), and along a function's lines the inline chain is
 * read again only where a scope begins or ends. sym is valid during the call. fn returns
 * 0 to continue. Returns 0 or the first non-zero value of fn.
 */
int symbolize_symtab_foreach_line(struct symbolize_symtab *st, uint64_t start, uint64_t size,
				int (*fn)(const struct symbolize_sym *sym, void *data), void *data);

/*
 * Call fn(addr, data) once for every line-table address in [start, start + size): the
 * instructions that begin a line-table row, for explicit zero counts. fn returns 0 to
 * continue. Returns 0 or the first non-zero value of fn.
 */
int symbolize_symtab_foreach_line_addr(struct symbolize_symtab *st, uint64_t start, uint64_t size,
				     int (*fn)(uint64_t addr, void *data), void *data);

struct symbolize_dieunit;
struct symbolize_die_attrs;

/*
 * Name (linkage name, else DW_AT_name; NULL if none) and DW_AT_decl_line of a function DIE
 * with attributes a, as dwarf_attr_integrate finds them along its origins/specifications;
 * *hops: references followed. 0, or -1 where only libdw can read. (How frames are named;
 * exported for tests/unit/symbolize-dieattrs.c.)
 */
int symbolize_symtab_die_name(const struct symbolize_dieunit *u, const struct symbolize_die_attrs *a,
			      const char **name, uint64_t *decl_line, int *has_decl_line, int *hops);

#endif
