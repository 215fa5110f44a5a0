/* SPDX-License-Identifier: MIT */
/*
 * Address -> symbol for a libdwfl module with one dwfl_module_addrinfo() call per
 * function instead of one per address. dwfl_module_addrinfo() scans every symbol of the
 * table on each call, which made symbolizing unwound stacks (thousands of distinct
 * return addresses, libc-sized tables) the bulk of convert's time.
 *
 * The answers are dwfl_module_addrinfo()'s own (convert/symidx.c says why they are
 * exact); tests/unit/convert-symidx.c checks them address by address.
 *
 * Ownership: convert_symidx_new() returns a new index, freed with convert_symidx_free()
 * (NULL is fine). Names are borrowed from the module: valid while its Dwfl lives.
 */
#ifndef PGO_CONVERT_SYMIDX_H
#define PGO_CONVERT_SYMIDX_H

#include <elfutils/libdwfl.h>
#include <gelf.h>

struct convert_symidx;

/* Index mod's symbols. Returns 0, or -1 after reporting (allocation failure). */
int convert_symidx_new(Dwfl_Module *mod, struct convert_symidx **out);
void convert_symidx_free(struct convert_symidx *ix);

/* As dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL). */
const char *convert_symidx_lookup(struct convert_symidx *ix, GElf_Addr addr, GElf_Off *off,
				  GElf_Sym *sym);

#endif
