// SPDX-License-Identifier: MIT
/* /proc/kallsyms reader (symbolize/ksyms.h): text symbols sorted by address. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/ksyms.h"
#include "lib/alloc.h"
#include "lib/buf.h"

struct ksym {
	uint64_t addr;
	size_t name;                   /* offset into names */
};

struct symbolize_ksyms {
	struct ksym *syms;
	size_t nr, alloc;
	struct pgo_buf names;          /* all names, NUL-separated */
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct symbolize_ksyms *symbolize_ksyms_load(const char *path)
{
	struct symbolize_ksyms *k = pgo_calloc(1, sizeof(*k));
	char line[512];
	FILE *fp;

	if (!k)
		return NULL;
	fp = fopen(path ? path : "/proc/kallsyms", "r");
	if (!fp)
		return k;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long addr;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (PGO_ALLOC_GROW(k->syms, k->nr + 1, k->alloc) < 0)
			break;
		k->syms[k->nr].addr = addr;
		k->syms[k->nr].name = k->names.len;
		if (pgo_buf_add(&k->names, name, strlen(name) + 1) < 0)
			break;
		k->nr++;
	}
	fclose(fp);
	if (k->nr > 1)
		qsort(k->syms, k->nr, sizeof(*k->syms), cmp_ksym);
	return k;
}

void symbolize_ksyms_free(struct symbolize_ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	pgo_buf_release(&k->names);
	free(k);
}

const char *symbolize_ksyms_find(const struct symbolize_ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* past the last text symbol (modules, data) there is no size to check: stop at 1 MiB */
	if (!lo || addr - k->syms[lo - 1].addr > (1u << 20))
		return NULL;
	return k->names.data + k->syms[lo - 1].name;
}
