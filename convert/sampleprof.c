// SPDX-License-Identifier: MIT
/*
 * Building the sample-profile model (convert/sampleprof.h) from the per-address counts
 * of the selected binaries. Each unique address is symbolized once (symtab cache).
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize/entryblock.h"
#include "convert/internal.h"
#include "convert/afdo_version.h"
#include "convert/sampleprof.h"
#include "lib/alloc.h"
#include "lib/radixsort.h"
#include "lib/report.h"

/* instructions looked at for a function's entry block */
#define ENTRY_INSNS_MAX 32

/*
 * add_zero's last inline path: the line-table rows of a function come in address order,
 * and consecutive rows mostly share their inline chain and often their line. Valid while
 * no record is freed (during the explicit-zeros pass).
 */
#define ZERO_DEPTH 32

struct zero_path {
	const struct sp_fn *top;       /* NULL: nothing cached */
	uint32_t depth;                /* levels below top cached */
	uint32_t off[ZERO_DEPTH];      /* level i: call-site offset in fn[i - 1] (top for 0) */
	uint32_t name[ZERO_DEPTH];     /* and callee */
	struct sp_fn *fn[ZERO_DEPTH];  /* its instance */
	const struct sp_fn *leaf;      /* the record and offset of the last position */
	uint32_t leaf_off;
};

/* Top-level functions while building: keyed by full ELF symbol name (clones apart). */
struct builder {
	struct sp_profile *sp;
	struct convert_profile *p;
	struct convert_binary *bin;
	struct pgo_u64map by_name;     /* name id -> index + 1 in sp->fns */
	struct pgo_u64map sampled;     /* symbol start -> size, functions that had samples */
	uint32_t last_name;            /* top_get's previous name (SYMBOLIZE_NO_NAME: none) */
	size_t last_idx;               /* and its index in sp->fns */
	size_t first;                  /* this binary's records: sp->fns[first..] */
	struct zero_path zp;           /* add_zero's */
};

const char *sp_str(const struct sp_profile *sp, uint32_t id)
{
	return convert_str(sp->p, id);
}

/*
 * The records are allocated in blocks that the profile owns (sp_release frees them): a
 * calloc and a free per inline instance were 0.7% of a convert (sqlite3: ~3000 of them).
 */
#define SP_FN_BLOCK 64

struct sp_fn_block {
	struct sp_fn_block *next;
	size_t used;
	struct sp_fn fn[SP_FN_BLOCK];
};

static struct sp_fn *fn_new(struct sp_profile *sp, uint32_t name)
{
	struct sp_fn *f;

	if (!sp->blocks || sp->blocks->used == SP_FN_BLOCK) {
		/* records zeroed as they are taken: calloc's memset of a block was 0.3% */
		struct sp_fn_block *b = malloc(sizeof(*b));

		if (!b) {
			pgo_error("out of memory (%zu bytes)", sizeof(*b));
			return NULL;
		}
		b->next = sp->blocks;
		b->used = 0;
		sp->blocks = b;
	}
	f = &sp->blocks->fn[sp->blocks->used++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	return f;
}

/*
 * The positions and call sites of a function, up to SP_SMALL_MAX, are allocated from
 * chunks that the profile owns, and a freed or outgrown array is kept for the next of its
 * size: most records have a few of each, and their malloc, realloc and free were 2% of a
 * convert's instructions (sqlite3: 3000 instances, two thirds of the reallocs).
 */
#define SP_CHUNK (64 * 1024)

struct sp_chunk {
	struct sp_chunk *next;
};

static unsigned small_class(size_t n)
{
	return (unsigned)__builtin_ctzl(n) - 2; /* 4 -> 0 ... 64 -> 4 */
}

static void *small_take(struct sp_profile *sp, int kind, size_t n, size_t bytes)
{
	void **spare = &sp->spare[kind][small_class(n)], *q = *spare;

	if (q) {
		*spare = *(void **)q;
		return q;
	}
	if (sp->room_len < bytes) {
		struct sp_chunk *c = malloc(SP_CHUNK);

		if (!c) {
			pgo_error("out of memory (%d bytes)", SP_CHUNK);
			return NULL;
		}
		c->next = sp->chunks;
		sp->chunks = c;
		sp->room = (char *)(c + 1);
		sp->room_len = SP_CHUNK - sizeof(*c);
	}
	q = sp->room;
	sp->room += bytes;
	sp->room_len -= bytes;
	return q;
}

/* Free array p of alloc elements (kind 0: positions, 1: call sites). */
static void small_free(struct sp_profile *sp, int kind, void *p, size_t alloc)
{
	void **spare;

	if (alloc > SP_SMALL_MAX) {
		free(p);
		return;
	}
	if (!p)
		return;
	spare = &sp->spare[kind][small_class(alloc)];
	*(void **)p = *spare;
	*spare = p;
}

/* What f and its instances own; the records themselves go with their blocks. */
static void fn_free(struct sp_profile *sp, struct sp_fn *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_pos; i++)
		free(f->pos[i].targets);
	for (i = 0; i < f->nr_cs; i++)
		fn_free(sp, f->cs[i].fn);
	small_free(sp, 0, f->pos, f->alloc_pos);
	free(f->pos_ix);
	small_free(sp, 1, f->cs, f->alloc_cs);
	free(f->entries);
}

/*
 * While building, a function's positions are appended as they come and found by a scan
 * while there are few, then through an index (pos_ix): kept sorted, every new line of a
 * large function moved all the lines after it (sqlite3VdbeExec has thousands). Its call
 * sites stay sorted by (offset, callee id), found by binary search. sort_fn sorts the
 * positions and puts the call sites in their output order (callee names) once the model
 * is complete.
 */
#define POS_SCAN 16

/*
 * Room for one more of f's positions (kind 0) or call sites (1), grown from 4: most inline
 * instances have a few lines, and PGO_ALLOC_GROW's first 16 were a tenth of a convert's
 * page faults (sqlite3: ~3000 instances).
 */
static int grow_small(struct sp_profile *sp, int kind, void **p, size_t *alloc, size_t size)
{
	size_t n = *alloc ? 2 * *alloc : 4;
	void *q;

	if (n > SIZE_MAX / 2 / size)
		return pgo_error("out of memory (%zu elements)", n);
	if (*alloc > SP_SMALL_MAX) {
		q = realloc(*p, n * size);
		if (!q)
			return pgo_error("out of memory (%zu bytes)", n * size);
	} else {
		q = n <= SP_SMALL_MAX ? small_take(sp, kind, n, n * size) : malloc(n * size);
		if (!q)
			return n <= SP_SMALL_MAX ? -1 : pgo_error("out of memory (%zu bytes)", n * size);
		if (*alloc)
			memcpy(q, *p, *alloc * size);
		small_free(sp, kind, *p, *alloc);
	}
	*p = q;
	*alloc = n;
	return 0;
}

#define GROW_SMALL(sp, kind, p, nr, alloc)                                                     \
	((nr) < (alloc) ? 0 : grow_small((sp), (kind), (void **)&(p), &(alloc), sizeof(*(p))))

/*
 * The index holds position numbers only, the keys are in f->pos: 4 bytes a slot instead of
 * a pgo_u64map's 24, and a multiplicative hash of the offset instead of xxHash (the u64map
 * was 2% of a convert's instructions here, two thirds of it inserting and growing).
 */
static size_t pos_slot(uint32_t offset, size_t cap)
{
	return (size_t)((offset * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static struct sp_pos *pos_find(const struct sp_fn *f, uint32_t offset)
{
	size_t i;

	if (f->pos_ix_cap) {
		for (i = pos_slot(offset, f->pos_ix_cap);; i = (i + 1) & (f->pos_ix_cap - 1)) {
			uint32_t v = f->pos_ix[i];

			if (!v)
				return NULL;
			if (f->pos[v - 1].offset == offset)
				return &f->pos[v - 1];
		}
	}
	for (i = 0; i < f->nr_pos; i++)
		if (f->pos[i].offset == offset)
			return &f->pos[i];
	return NULL;
}

static void pos_ix_insert(struct sp_fn *f, size_t idx)
{
	size_t i;

	for (i = pos_slot(f->pos[idx].offset, f->pos_ix_cap); f->pos_ix[i]; i = (i + 1) & (f->pos_ix_cap - 1))
		;
	f->pos_ix[i] = (uint32_t)idx + 1;
}

/* An index of cap slots (at most half full) over all of f's positions. */
static int pos_ix_build(struct sp_fn *f, size_t cap)
{
	uint32_t *ix = pgo_calloc(cap, sizeof(*ix));
	size_t i;

	if (!ix)
		return -1;
	free(f->pos_ix);
	f->pos_ix = ix;
	f->pos_ix_cap = cap;
	for (i = 0; i < f->nr_pos; i++)
		pos_ix_insert(f, i);
	return 0;
}

/* The position at offset, created if missing; valid until the next pos_get on f. */
static struct sp_pos *pos_get(struct sp_profile *sp, struct sp_fn *f, uint32_t offset)
{
	struct sp_pos *p = pos_find(f, offset);

	if (p)
		return p;
	if (f->nr_pos >= UINT32_MAX - 1) {
		pgo_error("out of memory (%zu line positions)", f->nr_pos);
		return NULL;
	}
	if (GROW_SMALL(sp, 0, f->pos, f->nr_pos, f->alloc_pos) < 0)
		return NULL;
	p = &f->pos[f->nr_pos++];
	memset(p, 0, sizeof(*p));
	p->offset = offset;
	if (f->pos_ix_cap && 2 * f->nr_pos <= f->pos_ix_cap) {
		pos_ix_insert(f, f->nr_pos - 1);
	} else if (f->pos_ix_cap || f->nr_pos > POS_SCAN) {
		if (pos_ix_build(f, f->pos_ix_cap ? 2 * f->pos_ix_cap : 4 * POS_SCAN) < 0)
			return NULL;
	}
	return p;
}

static size_t cs_lower(const struct sp_fn *f, uint32_t offset, uint32_t callee)
{
	size_t lo = 0, hi = f->nr_cs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sp_callsite *c = &f->cs[mid];

		if (c->offset < offset || (c->offset == offset && c->callee < callee))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct sp_fn *callee_find(const struct sp_fn *f, uint32_t offset, uint32_t callee)
{
	size_t i = cs_lower(f, offset, callee);

	if (i < f->nr_cs && f->cs[i].offset == offset && f->cs[i].callee == callee)
		return f->cs[i].fn;
	return NULL;
}

static struct sp_fn *callee_get(struct sp_profile *sp, struct sp_fn *f, uint32_t offset, uint32_t callee)
{
	size_t i = cs_lower(f, offset, callee);
	struct sp_fn *c;

	if (i < f->nr_cs && f->cs[i].offset == offset && f->cs[i].callee == callee)
		return f->cs[i].fn;
	if (GROW_SMALL(sp, 1, f->cs, f->nr_cs, f->alloc_cs) < 0)
		return NULL;
	c = fn_new(sp, callee);
	if (!c)
		return NULL;
	memmove(&f->cs[i + 1], &f->cs[i], (f->nr_cs - i) * sizeof(f->cs[0]));
	f->cs[i].offset = offset;
	f->cs[i].callee = callee;
	f->cs[i].fn = c;
	f->nr_cs++;
	return c;
}

/* LLVM's prefix encoding of discriminator components (base, duplication factor, copy id). */
static unsigned llvm_prefix_decode(unsigned u)
{
	if (u & 1)
		return 0;
	u >>= 1;
	return (u & 0x20) ? (((u >> 1) & 0xfe0) | (u & 0x1f)) : (u & 0x1f);
}

static unsigned llvm_next_component(unsigned d)
{
	if ((d & 1) == 0)
		return d >> ((d & 0x40) ? 14 : 7);
	return d >> 1;
}

static unsigned llvm_dup_factor(unsigned d)
{
	unsigned f = llvm_prefix_decode(llvm_next_component(d));

	return f ? f : 1;
}

static inline uint32_t frame_offset(const struct sp_profile *sp, const struct symbolize_sym_frame *fr)
{
	uint32_t off = (fr->line - fr->start_line) << 16;

	switch (sp->discr) {
	case SP_DISCR_EXACT:
		return off | (fr->discr & 0xffff);
	case SP_DISCR_LLVM:
		return off | (llvm_prefix_decode(fr->discr) & 0xffff);
	case SP_DISCR_GCC16:
		return off | convert_gcc16_discr_base(fr->discr);
	default:
		return off;
	}
}

static int top_get_slow(struct builder *B, uint32_t name, struct sp_fn **out)
{
	struct sp_profile *sp = B->sp;
	uint64_t *v;
	int ret;

	ret = pgo_u64map_get(&B->by_name, name, &v);
	if (ret < 0)
		return -1;
	if (ret == 0) {
		B->last_name = name;
		B->last_idx = *v - 1;
		*out = sp->fns[*v - 1];
		return 0;
	}
	if (PGO_ALLOC_GROW_UNINIT(sp->fns, sp->nr_fns + 1, sp->alloc_fns) < 0)
		return -1;
	sp->fns[sp->nr_fns] = fn_new(sp, name);
	if (!sp->fns[sp->nr_fns])
		return -1;
	*v = sp->nr_fns + 1;
	B->last_name = name;
	B->last_idx = sp->nr_fns;
	*out = sp->fns[sp->nr_fns++];
	return 0;
}

static inline int top_get(struct builder *B, uint32_t name, struct sp_fn **out)
{
	/* the addresses of a function come one after another (sorted, or its lines) */
	if (name == B->last_name) {
		*out = B->sp->fns[B->last_idx];
		return 0;
	}
	return top_get_slow(B, name, out);
}

/* Note that instance f was sampled in its inlined copy that begins at entry (0: unknown). */
static int note_entry(struct sp_fn *f, uint64_t entry)
{
	size_t i;

	if (!entry)
		return 0;
	for (i = 0; i < f->nr_entries; i++)
		if (f->entries[i] == entry)
			return 0;
	if (PGO_ALLOC_GROW_UNINIT(f->entries, f->nr_entries + 1, f->alloc_entries) < 0)
		return -1;
	f->entries[f->nr_entries++] = entry;
	return 0;
}

/* Functions of units a and b, compiled apart (LTO); 0 if either unit is unknown. */
static int units_differ(uint32_t a, uint32_t b)
{
	return a && b && a != b;
}

/*
 * Add `count` at the line of sym's inline path from frames[first] on, whose function is
 * f: walk (and create) the nested instances, MAX in the innermost line.
 */
static int add_path(struct builder *B, struct sp_fn *f, const struct symbolize_sym *sym, uint32_t first,
		    uint64_t count)
{
	struct sp_pos *pos;
	uint32_t i;

	for (i = first; i + 1 < sym->nr_frames; i++) {
		f->total += count;
		if (!f->unit)
			f->unit = sym->frames[i].unit;
		f = callee_get(B->sp, f, frame_offset(B->sp, &sym->frames[i]), sym->frames[i + 1].name);
		if (!f)
			return -1;
		/* the entries of the instances offline_instances may take */
		if (count && (units_differ(sym->frames[i].unit, sym->frames[i + 1].unit) ||
			      (B->sp->flags & (SP_OFFLINE_NESTED | SP_OFFLINE_INLINED))) &&
		    note_entry(f, symbolize_symtab_inline_entry(B->bin->st, sym->frames[i + 1].inl)) < 0)
			return -1;
	}
	f->total += count;
	if (!f->unit)
		f->unit = sym->frames[sym->nr_frames - 1].unit;
	pos = pos_get(B->sp, f, frame_offset(B->sp, &sym->frames[sym->nr_frames - 1]));
	if (!pos)
		return -1;
	/* clang: a loop body duplicated N times (unrolled, vectorized) ran N times per sample */
	if (B->sp->discr == SP_DISCR_LLVM)
		count *= llvm_dup_factor(sym->frames[sym->nr_frames - 1].discr);
	else if (B->sp->discr == SP_DISCR_GCC16)
		count *= convert_gcc16_discr_multiplicity(sym->frames[sym->nr_frames - 1].discr);
	if (count > pos->count)
		pos->count = count;
	return 0;
}

/* Add `count` at sym's line in its top-level function (created if missing). */
static int add_count_sym(struct builder *B, const struct symbolize_sym *sym, uint64_t count,
			 struct sp_fn **top_out)
{
	struct sp_fn *f;

	if (top_out)
		*top_out = NULL;
	/* line 0: compiler-generated code with no source line; nothing to match in gcc */
	if (sym->sym_name == SYMBOLIZE_NO_NAME || !sym->nr_frames || !sym->frames[sym->nr_frames - 1].line) {
		B->sp->samples_no_line += count;
		return 0;
	}
	if (top_get(B, sym->sym_name, &f) < 0)
		return -1;
	if (top_out)
		*top_out = f;
	return add_path(B, f, sym, 0, count);
}

static int add_count(struct builder *B, uint64_t addr, uint64_t count, struct sp_fn **top_out)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, addr);

	return add_count_sym(B, &sym, count, top_out);
}

/* The leaf pos record of addr's inline path (created if missing), or NULL. */
static struct sp_pos *pos_of(struct builder *B, uint64_t addr)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, addr);
	struct sp_fn *f;
	uint32_t i;

	if (sym.sym_name == SYMBOLIZE_NO_NAME || !sym.nr_frames || !sym.frames[sym.nr_frames - 1].line)
		return NULL;
	if (top_get(B, sym.sym_name, &f) < 0)
		return NULL;
	for (i = 0; i + 1 < sym.nr_frames && f; i++)
		f = callee_get(B->sp, f, frame_offset(B->sp, &sym.frames[i]), sym.frames[i + 1].name);
	return f ? pos_get(B->sp, f, frame_offset(B->sp, &sym.frames[sym.nr_frames - 1])) : NULL;
}

/* Add count to pos's call target callee (new if missing). Returns 0 or -1. */
static int pos_add_target(struct sp_pos *pos, uint32_t callee, uint64_t count)
{
	struct sp_target *t;
	size_t k;

	for (k = 0; k < pos->nr_targets; k++)
		if (pos->targets[k].name == callee) {
			pos->targets[k].count += count;
			return 0;
		}
	/* a call has few targets: grown one at a time */
	if (pos->nr_targets == UINT32_MAX ||
	    !(t = realloc(pos->targets, (pos->nr_targets + 1) * sizeof(*t))))
		return pgo_error("out of memory (%u call targets)", pos->nr_targets + 1);
	pos->targets = t;
	pos->targets[pos->nr_targets].name = callee;
	pos->targets[pos->nr_targets].count = count;
	pos->nr_targets++;
	return 0;
}

/* A call target seen at call_addr: gcc promotes the hottest target of an indirect call. */
static int add_target(struct builder *B, uint64_t call_addr, uint32_t callee, uint64_t count)
{
	struct sp_pos *pos = pos_of(B, call_addr);

	return pos ? pos_add_target(pos, callee, count) : 0;
}

/* The name gcc matches: the symbol name cut at the first '.'. */
static uint32_t base_name_id(struct builder *B, uint32_t id)
{
	const char *name = convert_str(B->p, id), *dot = strchr(name, '.');
	long base;

	if (!dot || dot == name)
		return id;
	base = pgo_strtab_intern_len(&B->p->strs, name, dot - name);
	return base < 0 ? id : (uint32_t)base;
}

/*
 * A part of a function that gcc split off and jumps to, never calls: foo.cold (hot/cold
 * partitioning), also after a clone's suffix (foo.part.0.cold) or numbered (foo.cold.1).
 */
static int is_cold_part(const char *name)
{
	const char *c;

	for (c = strstr(name, ".cold"); c; c = strstr(c + 1, ".cold"))
		if (c[5] == '\0' || c[5] == '.')
			return 1;
	return 0;
}

/* The count of sym's line, found in top-level f along its inline path (0 if none). */
static uint64_t count_of(struct builder *B, struct sp_fn *f, const struct symbolize_sym *sym)
{
	const struct sp_pos *pos;
	uint32_t i;

	if (!sym->nr_frames)
		return 0;
	for (i = 0; i + 1 < sym->nr_frames && f; i++)
		f = callee_find(f, frame_offset(B->sp, &sym->frames[i]), sym->frames[i + 1].name);
	if (!f)
		return 0;
	pos = pos_find(f, frame_offset(B->sp, &sym->frames[sym->nr_frames - 1]));
	return pos ? pos->count : 0;
}

/* The count of the line addr belongs to. */
static uint64_t count_at(struct builder *B, struct sp_fn *f, uint64_t addr)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, addr);

	return count_of(B, f, &sym);
}

/*
 * add_count_sym(data, sym, 0, NULL): the position of sym's line, created with its inline
 * path if missing. A count of 0 adds nothing anywhere else, so the levels and the leaf of
 * the previous row are reused where they are the same (binary searches and position
 * lookups were most of this pass).
 */
static int add_zero(const struct symbolize_sym *sym, void *data)
{
	struct builder *B = data;
	struct zero_path *z = &B->zp;
	struct sp_fn *f;
	uint32_t i, n = sym->nr_frames, off;

	if (sym->sym_name == SYMBOLIZE_NO_NAME || !n || !sym->frames[n - 1].line)
		return 0;
	if (n > ZERO_DEPTH)
		return add_count_sym(B, sym, 0, NULL);
	if (top_get(B, sym->sym_name, &f) < 0)
		return -1;
	if (z->top != f) {
		z->top = f;
		z->depth = 0;
	}
	for (i = 0; i + 1 < n; i++) {
		if (!f->unit)
			f->unit = sym->frames[i].unit;
		off = frame_offset(B->sp, &sym->frames[i]);
		if (i < z->depth && z->off[i] == off && z->name[i] == sym->frames[i + 1].name) {
			f = z->fn[i];
			continue;
		}
		f = callee_get(B->sp, f, off, sym->frames[i + 1].name);
		if (!f)
			return -1;
		z->off[i] = off;
		z->name[i] = sym->frames[i + 1].name;
		z->fn[i] = f;
		z->depth = i + 1;
	}
	if (!f->unit)
		f->unit = sym->frames[n - 1].unit;
	off = frame_offset(B->sp, &sym->frames[n - 1]);
	if (z->leaf == f && z->leaf_off == off)
		return 0;
	if (!pos_get(B->sp, f, off))
		return -1;
	z->leaf = f;
	z->leaf_off = off;
	return 0;
}

static int merge_fn(struct sp_profile *sp, struct sp_fn *dst, struct sp_fn *src)
{
	size_t i;

	dst->head += src->head;
	dst->total += src->total;
	for (i = 0; i < src->nr_pos; i++) {
		const struct sp_pos *q = &src->pos[i];
		struct sp_pos *p = pos_get(sp, dst, q->offset);
		size_t k;

		if (!p)
			return -1;
		p->count += q->count;
		/* the clone's indirect-call targets too (foo.part.0's calls are foo's to gcc) */
		for (k = 0; k < q->nr_targets; k++)
			if (pos_add_target(p, q->targets[k].name, q->targets[k].count) < 0)
				return -1;
	}
	for (i = 0; i < src->nr_cs; i++) {
		size_t had = dst->nr_cs;
		struct sp_fn *c = callee_get(sp, dst, src->cs[i].offset, src->cs[i].callee);

		if (!c || merge_fn(sp, c, src->cs[i].fn) < 0)
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
#define SLOT_KEY(e) ((e)->key)
PGO_RADIX_SORT(sort_pos, struct sp_pos, uint32_t, POS_KEY)
PGO_RADIX_SORT(sort_slots, struct pgo_u64map_slot, uint64_t, SLOT_KEY)

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
		if (merge_fn(sp, sp->fns[*v - 1], f) < 0)
			goto out;
		fn_free(sp, f);
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct points {
	uint64_t *v;
	size_t nr, alloc;
};

static int add_point(uint64_t addr, void *data)
{
	struct points *pt = data;

	if (PGO_ALLOC_GROW_UNINIT(pt->v, pt->nr + 1, pt->alloc) < 0)
		return -1;
	pt->v[pt->nr++] = addr;
	return 0;
}

/*
 * LBR: every straight-line range [begin, end] ran `count` times. The execution count
 * of an instruction is the sum over the ranges that cover it; it is constant between
 * consecutive "points" (range begins and line-table rows), so summing per point and
 * taking the per-line MAX (add_count) gives autofdo's per-line counts.
 */
static int expand_ranges(struct builder *B)
{
	struct convert_binary *b = B->bin;
	struct pgo_u64map funcs = PGO_U64MAP_INIT, acc = PGO_U64MAP_INIT;
	struct points pt = { NULL, 0, 0 };
	size_t i, k, n;
	int err = -1;

	for (i = 0; i < b->ranges.nr; i++) {
		struct symbolize_sym sym = symbolize_symtab_lookup(b->st, b->ranges.e[i].a);

		if (add_point(b->ranges.e[i].a, &pt) < 0)
			goto out;
		if (sym.sym_size && !pgo_u64map_find(&funcs, sym.sym_start)) {
			if (pgo_u64map_put(&funcs, sym.sym_start, sym.sym_size) < 0 ||
			    symbolize_symtab_foreach_line_addr(b->st, sym.sym_start, sym.sym_size,
							     add_point, &pt))
				goto out;
		}
	}
	if (pt.nr > 1)
		qsort(pt.v, pt.nr, sizeof(*pt.v), cmp_u64);
	for (i = n = 0; i < pt.nr; i++)
		if (!n || pt.v[n - 1] != pt.v[i])
			pt.v[n++] = pt.v[i];
	pt.nr = n;
	for (i = 0; i < b->ranges.nr; i++) {
		const struct pair_ent *r = &b->ranges.e[i];
		size_t lo = 0, hi = pt.nr;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (pt.v[mid] < r->a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < pt.nr && pt.v[k] <= r->b; k++) {
			uint64_t *v;

			if (pgo_u64map_get(&acc, pt.v[k], &v) < 0)
				goto out;
			*v += r->count;
		}
	}
	for (i = 0; i < acc.cap; i++) {
		const struct pgo_u64map_slot *s = &acc.slots[i];
		struct symbolize_sym sym;
		struct sp_fn *top;

		if (!s->used)
			continue;
		if (add_count(B, s->key, s->value, &top) < 0)
			goto out;
		sym = symbolize_symtab_lookup(b->st, s->key);
		if (top && sym.sym_size && pgo_u64map_put(&B->sampled, sym.sym_start, sym.sym_size) < 0)
			goto out;
	}
	err = 0;
out:
	free(pt.v);
	pgo_u64map_release(&funcs);
	pgo_u64map_release(&acc);
	return err;
}

/*
 * LBR call edges: a taken branch to a function's first instruction is a call; its count
 * is an exact entry count (head) and, at the call site, a call target.
 */
static int lbr_calls(struct builder *B, struct pgo_u64map *heads)
{
	struct convert_binary *b = B->bin;
	size_t i;

	for (i = 0; i < b->branches.nr; i++) {
		const struct pair_ent *e = &b->branches.e[i];
		struct symbolize_sym callee = symbolize_symtab_lookup(b->st, e->b);
		uint32_t name;
		uint64_t *v;

		if (callee.sym_name == SYMBOLIZE_NO_NAME || callee.sym_start != e->b)
			continue;
		name = base_name_id(B, callee.sym_name);
		if (pgo_u64map_get(heads, e->b, &v) < 0)
			return -1;
		*v += e->count;
		if (add_target(B, e->a, name, e->count) < 0)
			return -1;
	}
	return 0;
}

/*
 * Entry i of two pair maps read as one sequence: frame-pointer edges first, then the
 * DWARF-unwound ones (*unwound set).
 */
static const struct pair_ent *pair_at(const struct pairmap *fp, const struct pairmap *dw, size_t i,
				      int *unwound)
{
	*unwound = i >= fp->nr;
	return *unwound ? &dw->e[i - fp->nr] : &fp->e[i];
}

/*
 * Call stacks without LBR: the return addresses say which function each call site
 * reached. Counts are samples (time spent below the call), not calls, so they only
 * rank the targets of indirect calls, which is what gcc uses them for.
 */
static int stack_targets(struct builder *B)
{
	struct convert_binary *b = B->bin;
	size_t i;

	for (i = 0; i < b->calls.nr + b->ucalls.nr; i++) {
		int unwound;
		const struct pair_ent *e = pair_at(&b->calls, &b->ucalls, i, &unwound);
		struct symbolize_sym callee;

		/* a function without a frame hides its caller from frame-pointer stacks (not CFI) */
		if (!symbolize_symtab_is_indirect_call(b->st, e->a) ||
		    (!unwound && !symbolize_symtab_frame_ready(b->st, e->b)))
			continue;
		callee = symbolize_symtab_lookup(b->st, e->b);
		if (callee.sym_name == SYMBOLIZE_NO_NAME)
			continue;
		if (add_target(B, e->a - 1, base_name_id(B, callee.sym_name), e->count) < 0)
			return -1;
	}
	return 0;
}

struct site {
	uint64_t callee, ret;          /* callee symbol start, return address in the caller */
	uint64_t samples;              /* stack samples through this call site into callee */
};

/* by call site, then callee: the targets of one call site are adjacent */
static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->ret != y->ret)
		return x->ret < y->ret ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/*
 * Entry counts from call stacks without LBR. A function runs its entry once per call,
 * and each call executes the caller's call line once, so the sum over the call sites
 * the stacks show of the caller's count for the call line estimates the entry count in
 * the units of the body counts. The stack samples themselves are not used as counts:
 * they measure time below the call, not calls. An indirect call's line count is shared
 * among the targets the stacks show in proportion to their samples through it (the
 * only split the stacks give); each used to get all of it (newlisp's primitives, called
 * from one line of its evaluator, all had that line's count as head).
 * heads: callee start -> estimate.
 */
static int stack_heads(struct builder *B, struct pgo_u64map *heads)
{
	struct convert_binary *b = B->bin;
	struct site *v;
	size_t i, j, n = 0, m;
	int err = -1;

	v = pgo_calloc(b->calls.nr + b->ucalls.nr + 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < b->calls.nr + b->ucalls.nr; i++) {
		int unwound;
		const struct pair_ent *e = pair_at(&b->calls, &b->ucalls, i, &unwound);
		struct symbolize_sym callee;

		/* frame-pointer stacks skip the caller of a function that has no frame yet */
		if (!unwound && !symbolize_symtab_frame_ready(b->st, e->b))
			continue;
		callee = symbolize_symtab_lookup(b->st, e->b);
		if (callee.sym_name == SYMBOLIZE_NO_NAME || !e->a)
			continue;
		v[n].callee = callee.sym_start;
		v[n].samples = e->count;
		v[n++].ret = e->a;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_site);
	/* one entry per (call site, callee), samples summed */
	for (i = m = 0; i < n; i++) {
		if (m && v[i].callee == v[m - 1].callee && v[i].ret == v[m - 1].ret)
			v[m - 1].samples += v[i].samples;
		else
			v[m++] = v[i];
	}
	for (i = 0; i < m; i = j) {
		struct symbolize_sym caller;
		const uint64_t *top_idx;
		uint64_t c, total = 0, *h;
		size_t k;

		for (j = i; j < m && v[j].ret == v[i].ret; j++)
			total += v[j].samples;
		caller = symbolize_symtab_lookup(b->st, v[i].ret - 1);
		if (caller.sym_name == SYMBOLIZE_NO_NAME)
			continue;
		top_idx = pgo_u64map_find(&B->by_name, caller.sym_name);
		if (!top_idx)
			continue;
		c = count_at(B, B->sp->fns[*top_idx - 1], v[i].ret - 1);
		for (k = i; c && k < j; k++) {
			uint64_t share = j - i > 1 && total ? (c * v[k].samples + total / 2) / total : c;

			if (!share)
				continue;
			if (pgo_u64map_get(heads, v[k].callee, &h) < 0)
				goto out;
			*h += share;
		}
	}
	err = 0;
out:
	free(v);
	return err;
}

/*
 * Inline instances from call stacks (gcc only; docs/convert.md "Inline instances from
 * call stacks"). gcc 12 early-inlines a call regardless of size when the caller's
 * profile has an inline instance for (call line, callee) with a hot total
 * (autofdo-gcc12-format.md §5), so only what the profiled binary already inlined gets
 * that chance. A leaf edge (return address, sampled IP) says through which call site
 * a sample of the callee came: for a hot direct call to a small function (or an indirect
 * call whose dominant target it is), the callee's samples through that call site become
 * an instance of it at the call line, nested in the call address's inline chain, with the
 * conventions of a top-level function (MAX per line, explicit zeros, total = sum). The
 * callee's top-level profile is unchanged: if gcc does not inline, the out-of-line body
 * keeps its counts.
 */
/*
 * Hot: 0.2% of the binary's samples through one call site (jq: 18 of 9478 samples; its
 * stack_push/stack_pop call sites in jq_next have 21 to 108). Small: the size limit comes
 * from the options (docs/convert.md: what instrumented PGO inlines in jq).
 */
#define SP_INLINE_HOT_PER_MILLION 2000

struct leaf {
	uint64_t callee, ret, ip, count;   /* callee symbol start, return address, sampled IP */
};

static int cmp_leaf(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->ret != y->ret)
		return x->ret < y->ret ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Is the instruction that ends at ret a direct call (E8 rel32) to target? */
static int calls_directly(const struct symbolize_symtab *st, uint64_t ret, uint64_t target)
{
	uint8_t c[5];
	uint32_t rel;

	if (ret < sizeof(c) || symbolize_symtab_read(st, ret - sizeof(c), c, sizeof(c)) < 0 || c[0] != 0xe8)
		return 0;
	rel = (uint32_t)c[1] | (uint32_t)c[2] << 8 | (uint32_t)c[3] << 16 | (uint32_t)c[4] << 24;
	return ret + (uint64_t)(int64_t)(int32_t)rel == target;
}

/* A callee address with a line, i.e. one add_path can place. */
static int has_line(const struct symbolize_sym *sym)
{
	return sym->sym_name != SYMBOLIZE_NO_NAME && sym->nr_frames && sym->frames[sym->nr_frames - 1].line;
}

/*
 * The instance of `callee` at the call line of ret - 1 in an already sampled caller,
 * created with its path; `total` is added to every level above it. NULL if the caller
 * is not in the profile (or on allocation failure, *err set).
 */
static struct sp_fn *caller_instance(struct builder *B, uint64_t ret, uint32_t callee, uint64_t total,
				     int *err)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, ret - 1);
	const uint64_t *idx;
	struct sp_fn *f;
	uint32_t i;

	if (!has_line(&sym) || !(idx = pgo_u64map_find(&B->by_name, sym.sym_name)))
		return NULL;
	f = B->sp->fns[*idx - 1];
	for (i = 0; i + 1 < sym.nr_frames && f; i++) {
		f->total += total;
		f = callee_get(B->sp, f, frame_offset(B->sp, &sym.frames[i]), sym.frames[i + 1].name);
	}
	if (f) {
		size_t had = f->nr_cs;
		struct sp_fn *caller = f;

		f->total += total;
		f = callee_get(B->sp, f, frame_offset(B->sp, &sym.frames[sym.nr_frames - 1]), callee);
		/* an instance the binary already had stays a real one */
		if (f && caller->nr_cs > had)
			f->from_stacks = 1;
	}
	if (!f)
		*err = -1;
	return f;
}

struct inst_zero {
	struct builder *B;
	struct sp_fn *inst;
	uint64_t callee;
};

static int add_inst_zero(const struct symbolize_sym *sym, void *data)
{
	struct inst_zero *z = data;

	if (!has_line(sym) || sym->sym_start != z->callee)
		return 0;
	return add_path(z->B, z->inst, sym, 0, 0);
}

/*
 * Indirect calls (x86-64 FF /2). gcc 12 promotes an indirect call to a guarded direct
 * call and inlines it before annotation (afdo_vpt_for_early_inline) when the call line
 * has inline instances: the one with the largest total names the target, which must be
 * defined in the translation unit. It refuses when the line's count is below half the
 * sum of the line's call targets ("not hot anymore": in a profile of a binary that had
 * promoted the call, the targets left are the ones it did not inline).
 */

/*
 * The call-target record of the indirect call that returns to ret, if callee has at least
 * half of its targets' stack samples (ipa-profile speculates on no less either), else
 * NULL. The record was filled by stack_targets from all stack levels.
 */
static struct sp_pos *icall_dominant(struct builder *B, uint64_t ret, uint32_t callee)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, ret - 1);
	struct sp_pos *pos;
	uint64_t sum = 0, mine = 0;
	size_t k;

	if (!has_line(&sym) || !pgo_u64map_find(&B->by_name, sym.sym_name))
		return NULL;
	pos = pos_of(B, ret - 1);
	if (!pos)
		return NULL;
	for (k = 0; k < pos->nr_targets; k++) {
		sum += pos->targets[k].count;
		if (pos->targets[k].name == callee)
			mine = pos->targets[k].count;
	}
	return mine && mine >= sum - mine ? pos : NULL;
}

/*
 * The targets count stack samples below the call (time), the line counts samples at
 * the line: scale the targets, ratios kept, so that they sum to at most 2 * count + 1 and
 * gcc's "not hot anymore" test (count < sum / 2) lets the instance through.
 */
static void icall_scale(struct sp_pos *pos)
{
	uint64_t sum = 0, cap = 2 * pos->count + 1;
	size_t k, top = 0;

	for (k = 0; k < pos->nr_targets; k++) {
		sum += pos->targets[k].count;
		if (pos->targets[k].count > pos->targets[top].count)
			top = k;
	}
	if (sum <= cap)
		return;
	for (k = 0; k < pos->nr_targets; k++)
		pos->targets[k].count = (uint64_t)((unsigned __int128)pos->targets[k].count * cap / sum);
	/*
	 * A call line with no sample of its own (cap 1) rounds every target down to 0, and gcc
	 * promotes no target of count 0: the largest target (still the largest after scaling)
	 * keeps 1; all others are 0 then, so the sum stays within cap.
	 */
	if (!pos->targets[top].count)
		pos->targets[top].count = 1;
}

/*
 * One (callee, call site) group of leaf edges: an instance if hot and, at an indirect
 * call, the callee is the dominant target. Returns 1 if made.
 */
static int inline_edge(struct builder *B, const struct leaf *v, size_t n, uint64_t min, int indirect)
{
	struct symbolize_symtab *st = B->bin->st;
	struct symbolize_sym sym;
	struct sp_pos *site = NULL;
	struct inst_zero z;
	uint64_t total = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++) {
		sym = symbolize_symtab_lookup(st, v[i].ip);
		if (has_line(&sym))
			total += v[i].count;
	}
	if (total < min)
		return 0;
	sym = symbolize_symtab_lookup(st, v[0].callee);
	if (sym.sym_name == SYMBOLIZE_NO_NAME)
		return 0;
	if (indirect && !(site = icall_dominant(B, v[0].ret, base_name_id(B, sym.sym_name)))) {
		pgo_debug(2, "no inline instance: %s at %#llx is not the dominant target of the indirect call",
			  convert_str(B->p, sym.sym_name), (unsigned long long)v[0].ret);
		return 0;
	}
	pgo_debug(2, "inline instance: %s (%llu bytes) at %#llx%s, %llu samples",
		  convert_str(B->p, sym.sym_name), (unsigned long long)sym.sym_size,
		  (unsigned long long)v[0].ret, indirect ? " (indirect call)" : "",
		  (unsigned long long)total);
	z.B = B;
	z.callee = v[0].callee;
	z.inst = caller_instance(B, v[0].ret, base_name_id(B, sym.sym_name), total, &err);
	if (!z.inst)
		return err;
	for (i = 0; i < n; i++) {
		sym = symbolize_symtab_lookup(st, v[i].ip);
		/* frames[0] is the callee itself: the instance stands for it */
		if (has_line(&sym) && add_path(B, z.inst, &sym, 0, v[i].count) < 0)
			return -1;
	}
	sym = symbolize_symtab_lookup(st, z.callee);
	if (symbolize_symtab_foreach_line(st, z.callee, sym.sym_size, add_inst_zero, &z))
		return -1;
	if (site)
		icall_scale(site);
	return 1;
}

static int stack_inline(struct builder *B)
{
	struct convert_binary *b = B->bin;
	uint64_t max_size = B->p->inline_max_size;
	uint64_t min = b->samples * SP_INLINE_HOT_PER_MILLION / 1000000;
	size_t i, j, n = 0, made = 0, made_indirect = 0;
	struct leaf *v;
	int err = -1, ret;

	if (!max_size || B->sp->discr == SP_DISCR_LLVM)
		return 0;
	v = pgo_calloc(b->leaf_calls.nr + b->leaf_ucalls.nr + 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < b->leaf_calls.nr + b->leaf_ucalls.nr; i++) {
		int unwound;
		const struct pair_ent *e = pair_at(&b->leaf_calls, &b->leaf_ucalls, i, &unwound);
		struct symbolize_sym callee, caller;
		uint64_t start;

		/* a frame-pointer chain names the caller's caller while the callee has no frame */
		if (!e->a || (!unwound && !symbolize_symtab_frame_ready(b->st, e->b)))
			continue;
		callee = symbolize_symtab_lookup(b->st, e->b);
		if (callee.sym_name == SYMBOLIZE_NO_NAME || !callee.sym_size || callee.sym_size > max_size)
			continue;
		start = callee.sym_start;
		caller = symbolize_symtab_lookup(b->st, e->a - 1);
		/*
		 * recursion, and tail calls (the call names another function); an indirect
		 * call's target is the leaf unless it was reached by a tail call (NEEDSWORK:
		 * indistinguishable here)
		 */
		if (caller.sym_name == SYMBOLIZE_NO_NAME || caller.sym_start == start ||
		    (!calls_directly(b->st, e->a, start) && !symbolize_symtab_is_indirect_call(b->st, e->a)))
			continue;
		v[n].callee = start;
		v[n].ret = e->a;
		v[n].ip = e->b;
		v[n++].count = e->count;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_leaf);
	for (i = 0; i < n; i = j) {
		int indirect = !calls_directly(b->st, v[i].ret, v[i].callee);

		for (j = i + 1; j < n && v[j].callee == v[i].callee && v[j].ret == v[i].ret; j++)
			;
		ret = inline_edge(B, v + i, j - i, min > 2 ? min : 2, indirect);
		if (ret < 0)
			goto out;
		made += ret;
		if (indirect)
			made_indirect += ret;
	}
	pgo_debug(1, "%zu inline instances from call stacks, %zu at indirect calls (callees <= %llu bytes, >= %llu samples)",
		  made, made_indirect, (unsigned long long)max_size, (unsigned long long)(min > 2 ? min : 2));
	err = 0;
out:
	free(v);
	return err;
}

/* Per-address counts in address order, so consecutive lookups share the symbolizer's caches. */
static int add_counts_sorted(struct builder *B)
{
	struct convert_binary *b = B->bin;
	struct pgo_u64map_slot *v;
	size_t i, n = 0;
	int err = -1;

	v = pgo_calloc(b->counts.count ? b->counts.count : 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < b->counts.cap; i++)
		if (b->counts.slots[i].used)
			v[n++] = b->counts.slots[i];
	if (n > 1)
		sort_slots(v, n);
	for (i = 0; i < n; i++) {
		struct symbolize_sym sym;
		struct sp_fn *top;

		if (add_count(B, v[i].key, v[i].value, &top) < 0)
			goto out;
		sym = symbolize_symtab_lookup(b->st, v[i].key);
		if (top && sym.sym_size && pgo_u64map_put(&B->sampled, sym.sym_start, sym.sym_size) < 0)
			goto out;
	}
	err = 0;
out:
	free(v);
	return err;
}

static void want_pairs(const struct pairmap *m, uint64_t *v, size_t *n)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		/* a call edge's a is a return address: its caller is looked up at a - 1 */
		v[(*n)++] = m->e[i].a;
		v[(*n)++] = m->e[i].a - (m->e[i].a > 0);
		v[(*n)++] = m->e[i].b;
	}
}

/*
 * Tell the symbolizer which functions will be looked up: every sampled address and both
 * ends of every branch, range and call edge. A one-unit program (sqlite3) then keeps the
 * line-table rows of those functions only (symbolize_symtab_want).
 */
static int want_addrs(struct builder *B)
{
	const struct convert_binary *b = B->bin;
	const struct pairmap *pm[] = { &b->branches, &b->ranges, &b->calls, &b->ucalls,
				       &b->leaf_calls, &b->leaf_ucalls };
	size_t i, n = b->counts.count, k = 0;
	uint64_t *v;
	int err;

	for (i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
		n += 3 * pm[i]->nr;
	if (!(v = malloc((n ? n : 1) * sizeof(*v))))
		return pgo_error("out of memory");
	for (i = 0; i < b->counts.cap; i++)
		if (b->counts.slots[i].used)
			v[k++] = b->counts.slots[i].key;
	for (i = 0; i < sizeof(pm) / sizeof(pm[0]); i++)
		want_pairs(pm[i], v, &k);
	err = symbolize_symtab_want(b->st, v, k);
	free(v);
	return err;
}

struct entry_max {
	struct builder *B;
	struct sp_fn *top;
	uint64_t max;
};

static int entry_line(const struct symbolize_sym *sym, void *data)
{
	struct entry_max *m = data;
	uint64_t c = count_of(m->B, m->top, sym);

	if (c > m->max)
		m->max = c;
	return 0;
}

/*
 * The largest count among the lines of the function's entry block (entryblock.h); 0 if
 * unknown. The block's lines are those of the line-table rows that begin in it (the first
 * at the entry): instructions between rows have the line of the row before.
 */
static int entry_block_max(struct builder *B, struct symbolize_entryblock *eb, struct sp_fn *top,
			   uint64_t start, uint64_t size, uint64_t *max)
{
	uint64_t insns[ENTRY_INSNS_MAX];
	size_t n = symbolize_entryblock_insns(eb, start, size, insns, ENTRY_INSNS_MAX);
	struct entry_max m = { B, top, 0 };

	if (!n || symbolize_symtab_foreach_line(B->bin->st, start, insns[n - 1] + 1 - start, entry_line, &m))
		return -1;
	*max = m.max;
	return 0;
}

static uint64_t entry_block_count(struct builder *B, struct symbolize_entryblock *eb, struct sp_fn *top,
				  uint64_t start, uint64_t size)
{
	uint64_t max;

	return entry_block_max(B, eb, top, start, size, &max) < 0 ? 0 : max;
}

/*
 * How often instance c of record top was entered: its sampled inlined copies' entry
 * blocks (from DW_AT_entry_pc, as a function's head from its entry), each the largest
 * count of its lines, summed; at least 1. 0 if any copy's entry or block is unknown.
 */
static uint64_t instance_entry(struct builder *B, struct symbolize_entryblock *eb, struct sp_fn *top,
			       const struct sp_fn *c)
{
	uint64_t sum = 0, max;
	size_t i;

	if (!eb || !c->nr_entries)
		return 0;
	for (i = 0; i < c->nr_entries; i++) {
		uint64_t e = c->entries[i];
		struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, e);

		/* the copy's counts are in top only if its entry is in top's symbol */
		if (sym.sym_name != top->name || e - sym.sym_start >= sym.sym_size ||
		    entry_block_max(B, eb, top, e, sym.sym_start + sym.sym_size - e, &max) < 0)
			return 0;
		sum += max;
	}
	return sum ? sum : 1;
}

/*
 * Offlining. gcc 12 compiles a function before its callers, and its early inliner asks the
 * function's own record which callees to inline; its AutoFDO pass then inlines into each
 * record's function the instances one level down, and annotates. So an instance's own
 * inlined callees (Pshortestpath -> triangulate -> isdiagonal -> intersects -> ccw in
 * graphviz) are lost when their caller has no record, as when the binary kept no
 * out-of-line copy: the callee stays a call, counted by a call line whose instructions
 * went to the instance, and is taken for cold. And with LTO, gcc reads the profile while
 * compiling each unit, before the link-time inliner: an instance of b.c's work() inlined
 * into a.c's main() is looked for in main's record when a.c is compiled, where work cannot
 * be inlined, and work's body in b.c finds no record.
 * Each instance of a function compiled in another unit than its caller's, and each
 * instance with inlined callees of its own (SP_OFFLINE_NESTED; with SP_OFFLINE_INLINED
 * only those of functions the binary has no out-of-line copy of), is therefore also added
 * into its function's top-level record (created if missing), with its entry count
 * (instance_entry; its largest line count where that is unknown) added to the head, and
 * that count is given to the call line in the caller. Not for instances
 * copied from call stacks (the callee's own samples already), nor into a function on its
 * own inline path (recursion). gcc 15's reader offlines instances itself.
 * A function the training binary also kept out of line, unsampled there, was compiled on
 * its own as a plain function: offlining all nested instances (SP_OFFLINE_NESTED) gave
 * such small helpers records, their standalone bodies then inlined, regardless of size,
 * every callee any of their instances inlined, and mujs's build was 2.5-8.5% slower
 * (bench/NOTES.md, sessions 17-18). SP_OFFLINE_INLINED leaves them alone: graphviz 0.7-2.1%
 * faster, mujs, recsort, jq and sigscheme within +-1%.
 */
struct offl_site {
	struct sp_fn *inst, *caller; /* the instance, and the record it is inlined in */
	uint32_t at;                 /* its call-site offset there */
	uint64_t entry;              /* its entry count, at least 1 */
};

struct offl {
	struct builder *B;
	struct symbolize_entryblock *eb;
	struct sp_fn *top;           /* the top-level record walked */
	struct offl_site *v;
	size_t nr, alloc;
	uint32_t path[64];           /* names from the top-level record down */
	int depth;
	int nested;                  /* SP_OFFLINE_NESTED or SP_OFFLINE_INLINED */
	uint64_t *copies;            /* SP_OFFLINE_INLINED: the functions the binary has an
					out-of-line copy of (base names of its symbols), a bit
					per name id: ids are dense, and a pgo_u64map_get per
					symbol was 0.8-1% of a convert (sqlite3: 1456) */
	size_t alloc_copies;         /* words */
};

static int has_copy(const struct offl *o, uint32_t name)
{
	return name / 64 < o->alloc_copies && (o->copies[name / 64] >> (name % 64) & 1);
}

/* f has sampled instances of its own, inlined in the binary (not copied from stacks) */
static int inlines(const struct sp_fn *f)
{
	size_t i;

	for (i = 0; i < f->nr_cs; i++)
		if (!f->cs[i].fn->from_stacks && f->cs[i].fn->total)
			return 1;
	return 0;
}

static int find_offline(struct offl *o, struct sp_fn *f)
{
	size_t i, k;
	int d;

	if (o->depth == (int)(sizeof(o->path) / sizeof(o->path[0])))
		return 0;
	o->path[o->depth++] = f->name;
	for (i = 0; i < f->nr_cs; i++) {
		struct sp_fn *c = f->cs[i].fn;
		struct offl_site *site;
		int on_path = 0;

		if (c->from_stacks)
			continue;
		for (d = 0; d < o->depth; d++)
			on_path |= o->path[d] == c->name;
		if (c->total && !on_path &&
		    (units_differ(f->unit, c->unit) ||
		     (o->nested && inlines(c) && !has_copy(o, c->name)))) {
			if (PGO_ALLOC_GROW_UNINIT(o->v, o->nr + 1, o->alloc) < 0)
				return -1;
			site = &o->v[o->nr++];
			site->inst = c;
			site->caller = f;
			site->at = f->cs[i].offset;
			/* read before any call line below is raised */
			site->entry = instance_entry(o->B, o->eb, o->top, c);
			for (k = 0; !site->entry && k < c->nr_pos; k++)
				if (c->pos[k].count > site->entry)
					site->entry = c->pos[k].count;
			if (!site->entry)
				site->entry = 1;
		}
		if (find_offline(o, c) < 0)
			return -1;
	}
	o->depth--;
	return 0;
}

static int add_copy(uint32_t name, void *data)
{
	struct offl *o = data;
	uint32_t id = base_name_id(o->B, name);

	if (PGO_ALLOC_GROW(o->copies, id / 64 + 1, o->alloc_copies) < 0)
		return -1;
	o->copies[id / 64] |= (uint64_t)1 << (id % 64);
	return 0;
}

static int offline_instances(struct builder *B, struct symbolize_entryblock *eb)
{
	struct offl o = { .B = B, .eb = eb,
			  .nested = !!(B->sp->flags & (SP_OFFLINE_NESTED | SP_OFFLINE_INLINED)) };
	size_t i, n = B->sp->nr_fns;
	int err = -1;

	if ((B->sp->flags & (SP_OFFLINE_NESTED | SP_OFFLINE_INLINED)) == SP_OFFLINE_INLINED &&
	    symbolize_symtab_foreach_function(B->bin->st, add_copy, &o) < 0)
		goto out;

	for (i = B->first; i < n; i++) {
		o.top = B->sp->fns[i];
		if (find_offline(&o, B->sp->fns[i]) < 0)
			goto out;
	}
	/*
	 * The call line in the caller counts the calls: compiling the caller's unit, gcc
	 * counts the call's block by it, and the link-time inliner takes an edge counted 0
	 * (the call's instructions went to the instance) for cold. First, so that the copies
	 * below carry the call lines of the instances nested in them.
	 */
	for (i = 0; i < o.nr; i++) {
		struct sp_pos *pos = pos_get(B->sp, o.v[i].caller, o.v[i].at);

		if (!pos)
			goto out;
		if (pos->count < o.v[i].entry)
			pos->count = o.v[i].entry;
	}
	for (i = 0; i < o.nr; i++) {
		struct sp_fn *c = o.v[i].inst, *top, *copy = fn_new(B->sp, c->name);
		int created;

		/* a copy first: c may lie inside the record it is added to */
		if (!copy || merge_fn(B->sp, copy, c) < 0) {
			fn_free(B->sp, copy);
			goto out;
		}
		created = !pgo_u64map_find(&B->by_name, c->name);
		if (top_get(B, c->name, &top) < 0 || merge_fn(B->sp, top, copy) < 0) {
			fn_free(B->sp, copy);
			goto out;
		}
		fn_free(B->sp, copy);
		if (created)
			top->unit = c->unit;
		top->head += o.v[i].entry;
	}
	err = 0;
out:
	free(o.v);
	free(o.copies);
	return err;
}

static int build_binary(struct builder *B)
{
	struct convert_binary *b = B->bin;
	struct pgo_u64map heads = PGO_U64MAP_INIT;
	struct symbolize_entryblock *eb = NULL;
	int lbr = b->ranges.nr > 0, err;
	size_t i;

	if (want_addrs(B) < 0)
		return -1;
	if (lbr && expand_ranges(B) < 0)
		return -1;
	if (!lbr && add_counts_sorted(B) < 0)
		return -1;
	/* explicit zeros for every line with code in a sampled function */
	memset(&B->zp, 0, sizeof(B->zp));
	for (i = 0; i < B->sampled.cap; i++) {
		const struct pgo_u64map_slot *s = &B->sampled.slots[i];

		if (s->used && symbolize_symtab_foreach_line(b->st, s->key, s->value, add_zero, B))
			return -1;
	}
	memset(&B->zp, 0, sizeof(B->zp));
	if (lbr ? lbr_calls(B, &heads) < 0 : stack_targets(B) < 0 || stack_heads(B, &heads) < 0 ||
	    symbolize_entryblock_open(b->st, &eb) < 0) {
		pgo_u64map_release(&heads);
		return -1;
	}
	/*
	 * Head count: with LBR, the call edges. Without, the largest of the entry block's line
	 * counts (the entry instruction's line when the block is unknown) and the call-line
	 * counts of the callers seen in stacks; at least 1. gcc 12 gives the first block of a
	 * function the largest count of its lines, carries it to every block that runs once
	 * per call, and then scales the whole body by head / that count: a head below the
	 * entry block's count scales the body down (dispatch() in t2527: 274 on its switch
	 * line, 17 on the entry instruction's, and a case sampled 30 times became 2).
	 */
	for (i = 0; i < B->sampled.cap; i++) {
		const struct pgo_u64map_slot *s = &B->sampled.slots[i];
		const uint64_t *h = pgo_u64map_find(&heads, s->key);
		struct symbolize_sym sym;
		struct sp_fn *top;
		uint64_t c, e;

		if (!s->used)
			continue;
		sym = symbolize_symtab_lookup(b->st, s->key);
		if (sym.sym_name == SYMBOLIZE_NO_NAME || !sym.nr_frames || top_get(B, sym.sym_name, &top) < 0)
			continue;
		/* entered only from its function, whose head counts the calls already */
		if (is_cold_part(convert_str(B->p, sym.sym_name)))
			continue;
		c = count_at(B, top, s->key);
		if (!lbr && (e = entry_block_count(B, eb, top, s->key, s->value)) > c)
			c = e;
		if (h && (lbr || *h > c))
			c = *h;
		top->head += c ? c : 1;
	}
	pgo_u64map_release(&heads);
	if (!lbr && stack_inline(B) < 0) {
		symbolize_entryblock_free(eb);
		return -1;
	}
	for (i = B->first; i < B->sp->nr_fns; i++)
		sp_add_density(&B->sp->density, B->sp->fns[i]);
	/* clang's sample-profile loader inlines nested instances top-down itself */
	err = B->sp->discr == SP_DISCR_LLVM ? 0 : offline_instances(B, eb);
	symbolize_entryblock_free(eb);
	return err;
}

void sp_add_density(struct sp_density *d, const struct sp_fn *f)
{
	size_t i;

	for (i = 0; i < f->nr_pos; i++) {
		d->sampled += f->pos[i].count > 0;
		d->once += f->pos[i].count == 1;
		d->twice += f->pos[i].count == 2;
	}
	for (i = 0; i < f->nr_cs; i++)
		if (!f->cs[i].fn->from_stacks)
			sp_add_density(d, f->cs[i].fn);
}

int sp_build(struct convert_profile *p, enum sp_discr discr, unsigned flags, struct sp_profile *sp)
{
	struct builder B;
	size_t i, n;
	int err = 0;

	memset(sp, 0, sizeof(*sp));
	sp->p = p;
	sp->discr = discr;
	sp->flags = flags;
	for (i = 0; i < p->nr_bins && !err; i++) {
		memset(&B, 0, sizeof(B));
		B.last_name = SYMBOLIZE_NO_NAME;
		B.sp = sp;
		B.p = p;
		B.bin = &p->bins[i];
		B.first = sp->nr_fns;
		err = build_binary(&B);
		pgo_u64map_release(&B.by_name);
		pgo_u64map_release(&B.sampled);
	}
	if (!err)
		err = merge_clones(sp);
	if (err) {
		sp_release(sp);
		return err;
	}
	/* functions known only as call sources (LBR) carry nothing gcc can use */
	for (i = n = 0; i < sp->nr_fns; i++) {
		struct sp_fn *f = sp->fns[i];

		if (!f->total) {
			fn_free(sp, f);
			continue;
		}
		if (!f->head)
			f->head = 1;
		sp->fns[n++] = f;
	}
	sp->nr_fns = n;
	return 0;
}

void sp_release(struct sp_profile *sp)
{
	size_t i;

	for (i = 0; i < sp->nr_fns; i++)
		fn_free(sp, sp->fns[i]);
	free(sp->fns);
	sp->fns = NULL;
	sp->nr_fns = 0;
	while (sp->blocks) {
		struct sp_fn_block *b = sp->blocks;

		sp->blocks = b->next;
		free(b);
	}
	while (sp->chunks) {
		struct sp_chunk *c = sp->chunks;

		sp->chunks = c->next;
		free(c);
	}
	sp->room = NULL;
	sp->room_len = 0;
	memset(sp->spare, 0, sizeof(sp->spare));
}
