// SPDX-License-Identifier: MIT
/*
 * Symbol lookups of a libdwfl module at the cost of one dwfl_module_addrinfo() call per
 * function (convert/symidx.h).
 *
 * dwfl_module_addrinfo() scans the whole symbol table on every call, and its choice
 * among aliases and overlapping symbols follows elfutils' own rules and table order.
 * Rather than re-implement those rules, this index finds "clean" symbols: sized ones
 * with no other symbol's start or end strictly inside them. For every address inside a
 * clean symbol, elfutils sees the same candidates (the symbols that contain it, the
 * labels below it), so it gives the same symbol, except at the symbol's first byte,
 * where labels at that exact address compete too; one call per clean symbol is enough,
 * and the answer for another address inside it differs only in the offset. Addresses
 * in no clean symbol (nested or overlapping symbols, labels) still go to elfutils.
 */
#include <stdlib.h>
#include <string.h>

#include "convert/symidx.h"
#include "lib/alloc.h"
#include "lib/hashmap.h"
#include "lib/report.h"

struct ent {
	GElf_Addr value, end;      /* [value, value + st_size) */
	int clean;
};

struct answer {
	const char *name;
	GElf_Sym sym;
	GElf_Addr start;           /* addr - off */
};

struct convert_symidx {
	Dwfl_Module *mod;
	struct ent *ents;          /* sized symbols, by value */
	GElf_Addr *max_end;        /* max_end[i]: largest end among ents[0..i] */
	size_t nr;
	struct pgo_u64map memo;    /* value of a clean symbol -> index + 1 into answers */
	struct answer *answers;
	size_t nr_answers, alloc_answers;
};

static int cmp_addr(const void *a, const void *b)
{
	GElf_Addr x = *(const GElf_Addr *)a, y = *(const GElf_Addr *)b;

	return (x > y) - (x < y);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->value != y->value)
		return (x->value > y->value) - (x->value < y->value);
	return (x->end > y->end) - (x->end < y->end);
}

/* First index of sorted b[0..n) with b[i] > v. */
static size_t above(const GElf_Addr *b, size_t n, GElf_Addr v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int convert_symidx_new(Dwfl_Module *mod, struct convert_symidx **out)
{
	struct convert_symidx *ix = pgo_calloc(1, sizeof(*ix));
	GElf_Addr *bounds = NULL;
	size_t alloc = 0, nb = 0, alloc_b = 0, i;
	int n, k;

	*out = NULL;
	if (!ix)
		return -1;
	ix->mod = mod;
	n = dwfl_module_getsymtab(mod);
	for (k = 1; k < n; k++) {
		GElf_Addr value;
		GElf_Sym sym;
		const char *name = dwfl_module_getsym_info(mod, k, &sym, &value, NULL, NULL, NULL);

		if (!name || sym.st_shndx == SHN_UNDEF)
			continue;
		/* every defined symbol bounds the others, even those elfutils would not name */
		if (PGO_ALLOC_GROW(bounds, nb + 2, alloc_b) < 0)
			goto fail;
		bounds[nb++] = value;
		if (!sym.st_size)
			continue;
		bounds[nb++] = value + sym.st_size;
		if (PGO_ALLOC_GROW(ix->ents, ix->nr + 1, alloc) < 0)
			goto fail;
		ix->ents[ix->nr].value = value;
		ix->ents[ix->nr].end = value + sym.st_size;
		ix->nr++;
	}
	if (nb)
		qsort(bounds, nb, sizeof(*bounds), cmp_addr);
	if (ix->nr) {
		qsort(ix->ents, ix->nr, sizeof(*ix->ents), cmp_ent);
		ix->max_end = pgo_calloc(ix->nr, sizeof(*ix->max_end));
		if (!ix->max_end)
			goto fail;
	}
	for (i = 0; i < ix->nr; i++) {
		struct ent *e = &ix->ents[i];
		size_t j = above(bounds, nb, e->value);

		e->clean = j == nb || bounds[j] >= e->end;
		ix->max_end[i] = i && ix->max_end[i - 1] > e->end ? ix->max_end[i - 1] : e->end;
	}
	free(bounds);
	*out = ix;
	return 0;
fail:
	free(bounds);
	convert_symidx_free(ix);
	return pgo_error("out of memory indexing symbols");
}

void convert_symidx_free(struct convert_symidx *ix)
{
	if (!ix)
		return;
	free(ix->ents);
	free(ix->max_end);
	free(ix->answers);
	pgo_u64map_release(&ix->memo);
	free(ix);
}

/* A clean symbol containing addr, or NULL. */
static const struct ent *clean_container(const struct convert_symidx *ix, GElf_Addr addr)
{
	size_t lo = 0, hi = ix->nr, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->ents[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk down while some symbol at or below still reaches addr */
	for (i = lo; i-- > 0 && ix->max_end[i] > addr;)
		if (ix->ents[i].clean && ix->ents[i].end > addr)
			return &ix->ents[i];
	return NULL;
}

const char *convert_symidx_lookup(struct convert_symidx *ix, GElf_Addr addr, GElf_Off *off,
				  GElf_Sym *sym)
{
	const struct ent *e = clean_container(ix, addr);
	struct answer *a;
	uint64_t *slot;
	const char *name;
	int ret;

	/* at its first byte, labels of that very address also compete (absolute ones match
	 * only there): ask elfutils, and keep only answers from inside */
	if (!e || addr == e->value)
		return dwfl_module_addrinfo(ix->mod, addr, off, sym, NULL, NULL, NULL);
	ret = pgo_u64map_get(&ix->memo, e->value, &slot);
	if (ret < 0 || (ret == 0 && !*slot)) /* out of memory, now or when first seen */
		return dwfl_module_addrinfo(ix->mod, addr, off, sym, NULL, NULL, NULL);
	if (ret == 0) {
		a = &ix->answers[*slot - 1];
		if (!a->name)
			return NULL;
		*off = addr - a->start;
		*sym = a->sym;
		return a->name;
	}
	name = dwfl_module_addrinfo(ix->mod, addr, off, sym, NULL, NULL, NULL);
	if (PGO_ALLOC_GROW(ix->answers, ix->nr_answers + 1, ix->alloc_answers) < 0) {
		*slot = 0;
		return name;
	}
	a = &ix->answers[ix->nr_answers++];
	a->name = name;
	a->sym = name ? *sym : (GElf_Sym){ 0 };
	a->start = name ? addr - *off : 0;
	*slot = ix->nr_answers;
	return name;
}
