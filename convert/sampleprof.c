// SPDX-License-Identifier: MIT
/*
 * Building the sample-profile model (convert/sampleprof.h) from the per-address counts
 * of the selected binaries. Each unique address is symbolized once (symtab cache).
 */
#include <stdlib.h>
#include <string.h>

#include "convert/internal.h"
#include "convert/sampleprof.h"
#include "lib/alloc.h"
#include "lib/report.h"

/* Top-level functions while building: keyed by full ELF symbol name (clones apart). */
struct builder {
	struct sp_profile *sp;
	struct convert_profile *p;
	struct convert_binary *bin;
	struct pgo_u64map by_name;     /* name id -> index + 1 in sp->fns */
	struct pgo_u64map sampled;     /* symbol start -> size, functions that had samples */
};

const char *sp_str(const struct sp_profile *sp, uint32_t id)
{
	return convert_str(sp->p, id);
}

static struct sp_fn *fn_new(uint32_t name)
{
	struct sp_fn *f = pgo_calloc(1, sizeof(*f));

	if (f)
		f->name = name;
	return f;
}

static void fn_free(struct sp_fn *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_pos; i++)
		free(f->pos[i].targets);
	for (i = 0; i < f->nr_cs; i++)
		fn_free(f->cs[i].fn);
	free(f->pos);
	free(f->cs);
	free(f);
}

static struct sp_pos *pos_get(struct sp_fn *f, uint32_t offset)
{
	size_t i;

	for (i = 0; i < f->nr_pos; i++)
		if (f->pos[i].offset == offset)
			return &f->pos[i];
	if (PGO_ALLOC_GROW(f->pos, f->nr_pos + 1, f->alloc_pos) < 0)
		return NULL;
	memset(&f->pos[f->nr_pos], 0, sizeof(f->pos[0]));
	f->pos[f->nr_pos].offset = offset;
	return &f->pos[f->nr_pos++];
}

static struct sp_fn *callee_get(struct sp_fn *f, uint32_t offset, uint32_t callee)
{
	size_t i;

	for (i = 0; i < f->nr_cs; i++)
		if (f->cs[i].offset == offset && f->cs[i].callee == callee)
			return f->cs[i].fn;
	if (PGO_ALLOC_GROW(f->cs, f->nr_cs + 1, f->alloc_cs) < 0)
		return NULL;
	f->cs[f->nr_cs].offset = offset;
	f->cs[f->nr_cs].callee = callee;
	f->cs[f->nr_cs].fn = fn_new(callee);
	if (!f->cs[f->nr_cs].fn)
		return NULL;
	return f->cs[f->nr_cs++].fn;
}

static uint32_t frame_offset(const struct sp_profile *sp, const struct convert_sym_frame *fr)
{
	uint32_t off = (fr->line - fr->start_line) << 16;

	return sp->keep_discriminators ? off | (fr->discr & 0xffff) : off;
}

static int top_get(struct builder *B, uint32_t name, struct sp_fn **out)
{
	struct sp_profile *sp = B->sp;
	uint64_t *v;
	int ret = pgo_u64map_get(&B->by_name, name, &v);

	if (ret < 0)
		return -1;
	if (ret == 0) {
		*out = sp->fns[*v - 1];
		return 0;
	}
	if (PGO_ALLOC_GROW(sp->fns, sp->nr_fns + 1, sp->alloc_fns) < 0)
		return -1;
	sp->fns[sp->nr_fns] = fn_new(name);
	if (!sp->fns[sp->nr_fns])
		return -1;
	*v = sp->nr_fns + 1;
	*out = sp->fns[sp->nr_fns++];
	return 0;
}

/* Add `count` at addr: walk (and create) the inline path, MAX in the leaf line. */
static int add_count(struct builder *B, uint64_t addr, uint64_t count, struct sp_fn **top_out)
{
	struct convert_sym sym = convert_symtab_lookup(B->bin->st, addr);
	struct sp_fn *f;
	struct sp_pos *pos;
	uint32_t i;

	if (top_out)
		*top_out = NULL;
	/* line 0: compiler-generated code with no source line; nothing to match in gcc */
	if (sym.sym_name == CONVERT_NO_NAME || !sym.nr_frames || !sym.frames[sym.nr_frames - 1].line) {
		B->sp->samples_no_line += count;
		return 0;
	}
	if (top_get(B, sym.sym_name, &f) < 0)
		return -1;
	if (top_out)
		*top_out = f;
	for (i = 0; i + 1 < sym.nr_frames; i++) {
		f->total += count;
		f = callee_get(f, frame_offset(B->sp, &sym.frames[i]), sym.frames[i + 1].name);
		if (!f)
			return -1;
	}
	f->total += count;
	pos = pos_get(f, frame_offset(B->sp, &sym.frames[sym.nr_frames - 1]));
	if (!pos)
		return -1;
	if (count > pos->count)
		pos->count = count;
	return 0;
}

/* The count of the line addr belongs to, found along its inline path (0 if none). */
static uint64_t count_at(struct builder *B, struct sp_fn *f, uint64_t addr)
{
	struct convert_sym sym = convert_symtab_lookup(B->bin->st, addr);
	uint32_t i, off;
	size_t k;

	if (!sym.nr_frames)
		return 0;
	for (i = 0; i + 1 < sym.nr_frames && f; i++) {
		struct sp_fn *next = NULL;

		off = frame_offset(B->sp, &sym.frames[i]);
		for (k = 0; k < f->nr_cs; k++)
			if (f->cs[k].offset == off && f->cs[k].callee == sym.frames[i + 1].name)
				next = f->cs[k].fn;
		f = next;
	}
	if (!f)
		return 0;
	off = frame_offset(B->sp, &sym.frames[sym.nr_frames - 1]);
	for (k = 0; k < f->nr_pos; k++)
		if (f->pos[k].offset == off)
			return f->pos[k].count;
	return 0;
}

static int add_zero(uint64_t addr, void *data)
{
	return add_count(data, addr, 0, NULL);
}

static int merge_fn(struct sp_fn *dst, struct sp_fn *src)
{
	size_t i;

	dst->head += src->head;
	dst->total += src->total;
	for (i = 0; i < src->nr_pos; i++) {
		struct sp_pos *p = pos_get(dst, src->pos[i].offset);

		if (!p)
			return -1;
		p->count += src->pos[i].count;
	}
	for (i = 0; i < src->nr_cs; i++) {
		struct sp_fn *c = callee_get(dst, src->cs[i].offset, src->cs[i].callee);

		if (!c || merge_fn(c, src->cs[i].fn) < 0)
			return -1;
	}
	return 0;
}

static int cmp_pos(const void *a, const void *b)
{
	const struct sp_pos *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static const struct sp_profile *sort_sp;

static int cmp_cs(const void *a, const void *b)
{
	const struct sp_callsite *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(sp_str(sort_sp, x->callee), sp_str(sort_sp, y->callee));
}

static int cmp_fn(const void *a, const void *b)
{
	const struct sp_fn *x = *(struct sp_fn *const *)a, *y = *(struct sp_fn *const *)b;

	return strcmp(sp_str(sort_sp, x->name), sp_str(sort_sp, y->name));
}

static void sort_fn(struct sp_fn *f)
{
	size_t i;

	qsort(f->pos, f->nr_pos, sizeof(*f->pos), cmp_pos);
	qsort(f->cs, f->nr_cs, sizeof(*f->cs), cmp_cs);
	for (i = 0; i < f->nr_cs; i++)
		sort_fn(f->cs[i].fn);
}

/* Merge foo.suffix into foo (gcc cuts names at the first '.'), then sort. */
static int merge_clones(struct sp_profile *sp)
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
		if (merge_fn(sp->fns[*v - 1], f) < 0)
			goto out;
		fn_free(f);
	}
	sp->nr_fns = n;
	sort_sp = sp;
	qsort(sp->fns, sp->nr_fns, sizeof(*sp->fns), cmp_fn);
	for (i = 0; i < sp->nr_fns; i++)
		sort_fn(sp->fns[i]);
	err = 0;
out:
	pgo_u64map_release(&by_base);
	return err;
}

static int build_binary(struct builder *B)
{
	struct convert_binary *b = B->bin;
	size_t i;

	for (i = 0; i < b->counts.cap; i++) {
		const struct pgo_u64map_slot *s = &b->counts.slots[i];
		struct convert_sym sym;
		struct sp_fn *top;

		if (!s->used)
			continue;
		if (add_count(B, s->key, s->value, &top) < 0)
			return -1;
		sym = convert_symtab_lookup(b->st, s->key);
		if (top && sym.sym_size && pgo_u64map_put(&B->sampled, sym.sym_start, sym.sym_size) < 0)
			return -1;
	}
	/* explicit zeros for every line with code in a sampled function */
	for (i = 0; i < B->sampled.cap; i++) {
		const struct pgo_u64map_slot *s = &B->sampled.slots[i];

		if (s->used && convert_symtab_foreach_line_addr(b->st, s->key, s->value, add_zero, B))
			return -1;
	}
	/* head count: the entry instruction's line, at least 1 */
	for (i = 0; i < B->sampled.cap; i++) {
		const struct pgo_u64map_slot *s = &B->sampled.slots[i];
		struct convert_sym sym;
		struct sp_fn *top;
		uint64_t c;

		if (!s->used)
			continue;
		sym = convert_symtab_lookup(b->st, s->key);
		if (sym.sym_name == CONVERT_NO_NAME || !sym.nr_frames || top_get(B, sym.sym_name, &top) < 0)
			continue;
		c = count_at(B, top, s->key);
		top->head += c ? c : 1;
	}
	return 0;
}

int sp_build(struct convert_profile *p, int keep_discriminators, struct sp_profile *sp)
{
	struct builder B;
	size_t i;
	int err = 0;

	memset(sp, 0, sizeof(*sp));
	sp->p = p;
	sp->keep_discriminators = keep_discriminators;
	for (i = 0; i < p->nr_bins && !err; i++) {
		memset(&B, 0, sizeof(B));
		B.sp = sp;
		B.p = p;
		B.bin = &p->bins[i];
		err = build_binary(&B);
		pgo_u64map_release(&B.by_name);
		pgo_u64map_release(&B.sampled);
	}
	if (!err)
		err = merge_clones(sp);
	if (err)
		sp_release(sp);
	return err;
}

void sp_release(struct sp_profile *sp)
{
	size_t i;

	for (i = 0; i < sp->nr_fns; i++)
		fn_free(sp->fns[i]);
	free(sp->fns);
	sp->fns = NULL;
	sp->nr_fns = 0;
}
