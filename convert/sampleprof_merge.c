// SPDX-License-Identifier: MIT
/*
 * Merging sample-profile records: one function's records into another's, its clones
 * (foo.constprop.0) into it as gcc names them, and the records' order.
 */

#include <stdlib.h>
#include <string.h>

#include "convert/sampleprof_internal.h"
#include "lib/radixsort.h"

int sp_merge_fn(struct sp_profile *sp, struct sp_fn *dst, struct sp_fn *src)
{
	size_t i;

	dst->head += src->head;
	dst->total += src->total;
	for (i = 0; i < src->nr_pos; i++) {
		const struct sp_pos *q = &src->pos[i];
		struct sp_pos *p = sp_pos_get(sp, dst, q->offset);
		size_t k;

		if (!p)
			return -1;
		p->count += q->count;
		/* the clone's indirect-call targets too (foo.part.0's calls are foo's to gcc) */
		for (k = 0; k < q->nr_targets; k++)
			if (sp_pos_add_target(p, q->targets[k].name, q->targets[k].count) < 0)
				return -1;
	}
	for (i = 0; i < src->nr_cs; i++) {
		size_t had = dst->nr_cs;
		struct sp_fn *c = sp_callee_get(sp, dst, src->cs[i].offset, src->cs[i].callee);

		if (!c || sp_merge_fn(sp, c, src->cs[i].fn) < 0)
			return -1;
		if (dst->nr_cs > had)
			c->from_stacks = src->cs[i].fn->from_stacks;
	}
	return 0;
}

/*
 * Sorting. glibc's qsort (a merge sort calling the comparison through a pointer) was 7% of
 * a convert's instructions (sqlite3), most of it on the positions of large functions and
 * the per-address counts; their keys are unique integers, so lib/radixsort.h's stable
 * sort gives qsort's order.
 */
#define POS_KEY(e) ((e)->offset)

PGO_RADIX_SORT(sort_pos, struct sp_pos, uint32_t, POS_KEY)

static const struct sp_profile *sort_sp;

static int cmp_cs(const struct sp_callsite *x, const struct sp_callsite *y)
{
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(sp_str(sort_sp, x->callee), sp_str(sort_sp, y->callee));
}

static int cmp_cs_qsort(const void *a, const void *b)
{
	return cmp_cs(a, b);
}

/*
 * Call sites into their output order (offset, callee name). callee_get keeps them sorted
 * by (offset, callee id): only the runs of one offset are out of order, and short.
 */
static void sort_cs(struct sp_callsite *v, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].offset == v[i].offset; j++)
			;
		if (j - i > PGO_RADIX_SMALL) {
			qsort(v + i, j - i, sizeof(*v), cmp_cs_qsort);
			continue;
		}
		for (k = i + 1; k < j; k++) {
			struct sp_callsite x = v[k];
			size_t m;

			for (m = k; m > i && cmp_cs(&v[m - 1], &x) > 0; m--)
				v[m] = v[m - 1];
			v[m] = x;
		}
	}
}

static int cmp_fn(const void *a, const void *b)
{
	const struct sp_fn *x = *(struct sp_fn *const *)a, *y = *(struct sp_fn *const *)b;

	return strcmp(sp_str(sort_sp, x->name), sp_str(sort_sp, y->name));
}

static void sort_fn(struct sp_fn *f)
{
	size_t i;

	/* the index goes with the order it indexed */
	free(f->pos_ix);
	f->pos_ix = NULL;
	f->pos_ix_cap = 0;
	if (f->nr_pos > 1)
		sort_pos(f->pos, f->nr_pos);
	if (f->nr_cs > 1)
		sort_cs(f->cs, f->nr_cs);
	for (i = 0; i < f->nr_cs; i++)
		sort_fn(f->cs[i].fn);
}

/* Merge foo.suffix into foo (gcc cuts names at the first '.'), then sort. */
int sp_merge_clones(struct sp_profile *sp)
{
	struct pgo_u64map by_base = PGO_U64MAP_INIT;
	size_t i, n = 0;
	int err = -1;

	for (i = 0; i < sp->nr_fns; i++) {
		struct sp_fn *f = sp->fns[i];
		const char *name = sp_str(sp, f->name), *dot = strchr(name, '.');
		uint64_t *v;
		long base;
		int ret;

		base = dot && dot != name ? pgo_strtab_intern_len(&sp->p->strs, name, dot - name)
					  : (long)f->name;
		if (base < 0)
			goto out;
		ret = pgo_u64map_get(&by_base, (uint64_t)base, &v);
		if (ret < 0)
			goto out;
		if (ret) {
			f->name = (uint32_t)base;
			*v = n + 1;
			sp->fns[n++] = f;
			continue;
		}
		if (sp_merge_fn(sp, sp->fns[*v - 1], f) < 0)
			goto out;
		sp_fn_free(sp, f);
	}
	sp->nr_fns = n;
	sort_sp = sp;
	if (sp->nr_fns > 1)
		qsort(sp->fns, sp->nr_fns, sizeof(*sp->fns), cmp_fn);
	for (i = 0; i < sp->nr_fns; i++)
		sort_fn(sp->fns[i]);
	err = 0;
out:
	if (err < 0) {
		/* fns[n .. i) were kept lower down or freed; fns[i ..) are still owned */
		memmove(&sp->fns[n], &sp->fns[i], (sp->nr_fns - i) * sizeof(*sp->fns));
		sp->nr_fns = n + (sp->nr_fns - i);
	}
	pgo_u64map_release(&by_base);
	return err;
}
