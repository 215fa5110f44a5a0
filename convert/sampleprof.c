// SPDX-License-Identifier: MIT
/*
 * Building the sample-profile model (convert/sampleprof.h) from the per-address counts
 * of the selected binaries. Each unique address is symbolized once (symtab cache). This
 * file holds the records and the counts; convert/sampleprof_internal.h lists the others.
 */
#include <stdlib.h>
#include <string.h>

#include "convert/sampleprof.h"
#include "convert/sampleprof_internal.h"
#include "lib/alloc.h"
#include "lib/report.h"

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

struct sp_fn *sp_fn_new(struct sp_profile *sp, uint32_t name)
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
void sp_fn_free(struct sp_profile *sp, struct sp_fn *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr_pos; i++)
		free(f->pos[i].targets);
	for (i = 0; i < f->nr_cs; i++)
		sp_fn_free(sp, f->cs[i].fn);
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
struct sp_pos *sp_pos_get(struct sp_profile *sp, struct sp_fn *f, uint32_t offset)
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

struct sp_fn *sp_callee_get(struct sp_profile *sp, struct sp_fn *f, uint32_t offset, uint32_t callee)
{
	size_t i = cs_lower(f, offset, callee);
	struct sp_fn *c;

	if (i < f->nr_cs && f->cs[i].offset == offset && f->cs[i].callee == callee)
		return f->cs[i].fn;
	if (GROW_SMALL(sp, 1, f->cs, f->nr_cs, f->alloc_cs) < 0)
		return NULL;
	c = sp_fn_new(sp, callee);
	if (!c)
		return NULL;
	memmove(&f->cs[i + 1], &f->cs[i], (f->nr_cs - i) * sizeof(f->cs[0]));
	f->cs[i].offset = offset;
	f->cs[i].callee = callee;
	f->cs[i].fn = c;
	f->nr_cs++;
	return c;
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

int sp_top_get_slow(struct builder *B, uint32_t name, struct sp_fn **out)
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
	sp->fns[sp->nr_fns] = sp_fn_new(sp, name);
	if (!sp->fns[sp->nr_fns])
		return -1;
	*v = sp->nr_fns + 1;
	B->last_name = name;
	B->last_idx = sp->nr_fns;
	*out = sp->fns[sp->nr_fns++];
	return 0;
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
int sp_units_differ(uint32_t a, uint32_t b)
{
	return a && b && a != b;
}

/*
 * Add `count` at the line of sym's inline path from frames[first] on, whose function is
 * f: walk (and create) the nested instances, MAX in the innermost line.
 */
int sp_add_path(struct builder *B, struct sp_fn *f, const struct symbolize_sym *sym, uint32_t first,
		uint64_t count)
{
	struct sp_pos *pos;
	uint32_t i;

	for (i = first; i + 1 < sym->nr_frames; i++) {
		f->total += count;
		if (!f->unit)
			f->unit = sym->frames[i].unit;
		f = sp_callee_get(B->sp, f, frame_offset(B->sp, &sym->frames[i]), sym->frames[i + 1].name);
		if (!f)
			return -1;
		/* the entries of the instances offline_instances may take */
		if (count && (sp_units_differ(sym->frames[i].unit, sym->frames[i + 1].unit) ||
			      (B->sp->flags & (SP_OFFLINE_NESTED | SP_OFFLINE_INLINED))) &&
		    note_entry(f, symbolize_symtab_inline_entry(B->bin->st, sym->frames[i + 1].inl)) < 0)
			return -1;
	}
	f->total += count;
	if (!f->unit)
		f->unit = sym->frames[sym->nr_frames - 1].unit;
	pos = sp_pos_get(B->sp, f, frame_offset(B->sp, &sym->frames[sym->nr_frames - 1]));
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
	return sp_add_path(B, f, sym, 0, count);
}

int sp_add_count(struct builder *B, uint64_t addr, uint64_t count, struct sp_fn **top_out)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, addr);

	return add_count_sym(B, &sym, count, top_out);
}

/* The leaf pos record of addr's inline path (created if missing), or NULL. */
struct sp_pos *sp_pos_of(struct builder *B, uint64_t addr)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, addr);
	struct sp_fn *f;
	uint32_t i;

	if (sym.sym_name == SYMBOLIZE_NO_NAME || !sym.nr_frames || !sym.frames[sym.nr_frames - 1].line)
		return NULL;
	if (top_get(B, sym.sym_name, &f) < 0)
		return NULL;
	for (i = 0; i + 1 < sym.nr_frames && f; i++)
		f = sp_callee_get(B->sp, f, frame_offset(B->sp, &sym.frames[i]), sym.frames[i + 1].name);
	return f ? sp_pos_get(B->sp, f, frame_offset(B->sp, &sym.frames[sym.nr_frames - 1])) : NULL;
}

/* Add count to pos's call target callee (new if missing). Returns 0 or -1. */
int sp_pos_add_target(struct sp_pos *pos, uint32_t callee, uint64_t count)
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
int sp_add_target(struct builder *B, uint64_t call_addr, uint32_t callee, uint64_t count)
{
	struct sp_pos *pos = sp_pos_of(B, call_addr);

	return pos ? sp_pos_add_target(pos, callee, count) : 0;
}

/* The name gcc matches: the symbol name cut at the first '.'. */
uint32_t sp_base_name_id(struct builder *B, uint32_t id)
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
uint64_t sp_count_of(struct builder *B, struct sp_fn *f, const struct symbolize_sym *sym)
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
uint64_t sp_count_at(struct builder *B, struct sp_fn *f, uint64_t addr)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, addr);

	return sp_count_of(B, f, &sym);
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
		f = sp_callee_get(B->sp, f, off, sym->frames[i + 1].name);
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
	if (!sp_pos_get(B->sp, f, off))
		return -1;
	z->leaf = f;
	z->leaf_off = off;
	return 0;
}

static int build_binary(struct builder *B)
{
	struct convert_binary *b = B->bin;
	struct pgo_u64map heads = PGO_U64MAP_INIT;
	struct symbolize_entryblock *eb = NULL;
	int lbr = b->ranges.nr > 0, err;
	size_t i;

	if (sp_want_addrs(B) < 0)
		return -1;
	if (lbr && sp_expand_ranges(B) < 0)
		return -1;
	if (!lbr && sp_add_counts_sorted(B) < 0)
		return -1;
	/* explicit zeros for every line with code in a sampled function */
	memset(&B->zp, 0, sizeof(B->zp));
	for (i = 0; i < B->sampled.cap; i++) {
		const struct pgo_u64map_slot *s = &B->sampled.slots[i];

		if (s->used && symbolize_symtab_foreach_line(b->st, s->key, s->value, add_zero, B))
			return -1;
	}
	memset(&B->zp, 0, sizeof(B->zp));
	if (lbr ? sp_lbr_calls(B, &heads) < 0 : sp_stack_targets(B) < 0 || sp_stack_heads(B, &heads) < 0 ||
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
		c = sp_count_at(B, top, s->key);
		if (!lbr && (e = sp_entry_block_count(B, eb, top, s->key, s->value)) > c)
			c = e;
		if (h && (lbr || *h > c))
			c = *h;
		top->head += c ? c : 1;
	}
	pgo_u64map_release(&heads);
	if (!lbr && sp_stack_inline(B) < 0) {
		symbolize_entryblock_free(eb);
		return -1;
	}
	for (i = B->first; i < B->sp->nr_fns; i++)
		sp_add_density(&B->sp->density, B->sp->fns[i]);
	/* clang's sample-profile loader inlines nested instances top-down itself */
	err = B->sp->discr == SP_DISCR_LLVM ? 0 : sp_offline_instances(B, eb);
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
		err = sp_merge_clones(sp);
	if (err) {
		sp_release(sp);
		return err;
	}
	/* functions known only as call sources (LBR) carry nothing gcc can use */
	for (i = n = 0; i < sp->nr_fns; i++) {
		struct sp_fn *f = sp->fns[i];

		if (!f->total) {
			sp_fn_free(sp, f);
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
		sp_fn_free(sp, sp->fns[i]);
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
