// SPDX-License-Identifier: MIT
/*
 * The symbolizer's lookups (symbolize/symtab.h): an address to its ELF symbol and inline
 * chain, the units' line tables (ours, else libdw's), and the walks over their rows.
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symtab_internal.h"
#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/radixsort.h"

/*
 * The function symbol containing addr (sized symbols only reach their size). The binary
 * search over all symbols (a dozen steps, 1% of a convert) is narrowed to a bucket's.
 */
static const struct fsym *sym_of(const struct symbolize_symtab *st, uint64_t addr)
{
	size_t lo = 0, hi = st->nr_syms;
	const struct fsym *f;

	if (st->sym_buckets && addr >= st->syms[0].start) {
		uint64_t b = (addr - st->syms[0].start) >> st->sym_shift;

		if (b < st->nr_sym_buckets) {
			lo = st->sym_buckets[b];
			hi = st->sym_buckets[b + 1];
		} else {
			lo = st->sym_buckets[st->nr_sym_buckets];
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &st->syms[lo - 1];
	if (f->size && addr - f->start >= f->size)
		return NULL;
	if (!f->size && lo < st->nr_syms && addr >= st->syms[lo].start)
		return NULL;
	return f;
}

/* The CU whose ranges contain pc (a DWARF address), or NULL. */
static Dwarf_Die *cu_of(struct symbolize_symtab *st, Dwarf_Addr pc)
{
	size_t lo = 0, hi = st->nr_ranges, k;
	const struct cu_range *r;

	/*
	 * Addresses come in runs inside one range (a function's rows): the previous answer
	 * stands while pc is in its range and below the next range's start, where the search
	 * below would end and look back from. The search was 3% of graphviz's convert.
	 */
	if (st->last_range < st->nr_ranges) {
		r = &st->ranges[st->last_range];
		if (pc >= r->lo && pc < r->hi && (st->last_range + 1 == st->nr_ranges || pc < r[1].lo))
			return &st->cus[r->cu];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->ranges[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges of different CUs rarely overlap; look back a few in case they do */
	for (k = 0; k < 8 && lo > 0; k++) {
		r = &st->ranges[--lo];
		if (pc < r->hi) {
			st->last_range = lo;
			return &st->cus[r->cu];
		}
	}
	return NULL;
}

/*
 * A file name from libdw's file tables as a name id. libdw returns the same pointer for
 * the same entry of a CU's table, so the pointer is looked up first and the string
 * hashed only once per entry: every resolved address has a file.
 */
static uint32_t intern_file(struct symbolize_symtab *st, const char *s)
{
	uint64_t *v;
	uint32_t id;
	int ret;

	if (!s)
		return SYMBOLIZE_NO_NAME;
	ret = pgo_u64map_get(&st->file_ids, (uint64_t)(uintptr_t)s, &v);
	if (ret == 0)
		return (uint32_t)*v;
	id = symbolize_symtab_intern(st, s);
	if (ret > 0)
		*v = id;
	return id;
}

/* Do the wanted ranges hold all of unit addresses [lo, hi)? */
static bool wanted(const struct symbolize_symtab *st, uint64_t lo, uint64_t hi)
{
	size_t a = convert_linerange_above(st->want, 0, st->nr_want, lo);

	return a < st->nr_want && st->want[a].lo <= lo && hi <= st->want[a].hi;
}

static void lines_drop(struct cu_lines *l)
{
	symbolize_linetab_release(&l->t);
	free(l->file_ids);
	l->file_ids = NULL;
	l->state = LINES_UNREAD;
}

/*
 * The line table of CU cu, read on first use; NULL if libdw has to be asked. Lookups
 * will ask about unit addresses [lo, hi) (lo == hi: only its file names): a table read
 * for the wanted ranges alone is read again whole if they do not hold them.
 */
static struct cu_lines *lines_of(struct symbolize_symtab *st, size_t cu, uint64_t lo, uint64_t hi)
{
	struct cu_lines *l = &st->lines[cu];
	bool whole = lo < hi && !wanted(st, lo, hi);
	size_t i;

	if (l->state == LINES_OURS && l->t.partial && whole) {
		pgo_debug(2, "'%s': unit %zu: 0x%" PRIx64 " not wanted, its line table read whole",
			  st->path, cu, lo);
		lines_drop(l);
	}
	if (l->state == LINES_UNREAD) {
		const char *name = dwarf_diename(&st->cus[cu]);
		size_t nw = whole ? 0 : st->nr_want;

		l->state = LINES_LIBDW;
		if (!st->have_secs)
			return NULL;
		if (symbolize_linetab_read(&l->t, &st->secs, &st->cus[cu], st->want, nw) != 0) {
			pgo_debug(1, "'%s': unit %s: line table left to libdw", st->path, name ? name : "?");
			return NULL;
		}
		pgo_debug(3, "'%s': unit %s: line table %s, %zu rows in %zu sequences", st->path,
			  name ? name : "?", l->t.partial ? "partial" : "whole", l->t.nr_rows, l->t.nr_seqs);
		l->file_ids = malloc((l->t.nr_files ? l->t.nr_files : 1) * sizeof(*l->file_ids));
		if (!l->file_ids) {
			symbolize_linetab_release(&l->t);
			return NULL;
		}
		for (i = 0; i < l->t.nr_files; i++)
			l->file_ids[i] = FILE_UNSET;
		l->state = LINES_OURS;
	}
	return l->state == LINES_OURS ? l : NULL;
}

/*
 * The unit holding module addresses [addr, addr + size) (NULL if none), and its line
 * table if ours (*l).
 */
static Dwarf_Die *unit_of(struct symbolize_symtab *st, uint64_t addr, uint64_t size, struct cu_lines **l)
{
	Dwarf_Die *cudie = st->dwarf ? cu_of(st, addr - st->dwbias) : NULL;
	uint64_t pc = addr - st->dwbias;

	*l = cudie ? lines_of(st, (size_t)(cudie - st->cus), pc, pc + (size ? size : 1)) : NULL;
	return cudie;
}

/* the union below does not depend on the order of equal starts */
#define WANT_KEY(e) ((e)->lo)
PGO_RADIX_SORT(sort_want, struct symbolize_linerange, uint64_t, WANT_KEY)

int symbolize_symtab_want(struct symbolize_symtab *st, const uint64_t *addrs, size_t n)
{
	struct symbolize_linerange *w = NULL;
	size_t i, m = 0;

	if (n && !(w = malloc(n * sizeof(*w))))
		return pgo_error("out of memory");
	for (i = 0; i < n; i++) {
		const struct fsym *fs = sym_of(st, addrs[i]);
		uint64_t lo = addrs[i], hi = addrs[i] + 1;

		if (fs && fs->size && addrs[i] - fs->start < fs->size) {
			lo = fs->start;
			hi = fs->start + fs->size;
		}
		if (lo < st->dwbias || hi <= lo)
			continue;
		w[m].lo = lo - st->dwbias;
		w[m++].hi = hi - st->dwbias;
	}
	sort_want(w, m);
	for (i = n = 0; i < m; i++) {
		if (n && w[i].lo <= w[n - 1].hi) {
			if (w[i].hi > w[n - 1].hi)
				w[n - 1].hi = w[i].hi;
		} else {
			w[n++] = w[i];
		}
	}
	for (i = 0; st->lines && i < st->nr_cus; i++)
		if (st->lines[i].state == LINES_OURS && st->lines[i].t.partial)
			lines_drop(&st->lines[i]);
	free(st->want);
	st->want = n ? w : NULL;
	st->nr_want = n;
	if (!n)
		free(w);
	return 0;
}

static __attribute__((noinline)) uint32_t file_id_new(struct symbolize_symtab *st, struct cu_lines *l,
						       uint32_t idx)
{
	return l->file_ids[idx] = symbolize_symtab_intern(st, symbolize_linetab_file(&l->t, idx));
}

/* inline, the interning out of line: the call for every line's file was 1% of a convert */
static inline uint32_t file_id(struct symbolize_symtab *st, struct cu_lines *l, uint32_t idx)
{
	if (idx >= l->t.nr_files)
		return SYMBOLIZE_NO_NAME;
	if (l->file_ids[idx] == FILE_UNSET)
		return file_id_new(st, l, idx);
	return l->file_ids[idx];
}

/* A unit's file index idx (DW_AT_call_file) as a name id. */
uint32_t symbolize_symtab_file_of_index(struct symbolize_symtab *st, Dwarf_Die *cudie, uint32_t idx)
{
	struct cu_lines *l = lines_of(st, (size_t)(cudie - st->cus), 0, 0);
	Dwarf_Files *files;
	size_t nfiles;

	if (l)
		return file_id(st, l, idx);
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0 || idx >= nfiles)
		return SYMBOLIZE_NO_NAME;
	return intern_file(st, dwarf_filesrc(files, idx, NULL, NULL));
}

static int push_frame(struct symbolize_symtab *st, const struct symbolize_sym_frame *f)
{
	if (PGO_ALLOC_GROW_UNINIT(st->frames, st->nr_frames + 1, st->alloc_frames) < 0)
		return -1;
	st->frames[st->nr_frames++] = *f;
	return 0;
}

static uint64_t inl_handle(const struct symbolize_symtab *st, const Dwarf_Die *cudie, Dwarf_Die *die)
{
	return dwarf_dieoffset(die) | (uint64_t)(cudie - st->cus + 1) << INL_UNIT_SHIFT;
}

/*
 * fn_info for scope id of unit cu's tree: the DIE's entry is kept with the scope, so that
 * the chains that share it (every span of a function's addresses) find it without a hash
 * lookup, and without entering it in the hash table, which is for the origins many
 * instances share (a scope's DIE met again as an origin gets an equal entry of its own).
 */
static __attribute__((noinline)) struct die_info *scope_info_read(struct symbolize_symtab *st, size_t cu,
								  uint32_t id, int need_call,
								  struct die_info *tmp)
{
	struct symbolize_scopetree *t = &st->trees[cu];
	Dwarf_Die die;

	symbolize_scopetree_die(t, id, &die);
	return symbolize_symtab_fn_info(st, cu, &die, NULL, need_call, 0, tmp, symbolize_scopetree_user(t, id));
}

/* inline, the reading out of line: the entry is there for most chains */
static inline struct die_info *scope_info(struct symbolize_symtab *st, size_t cu, uint32_t id, int need_call,
					  struct die_info *tmp)
{
	uint32_t slot = *symbolize_scopetree_user(&st->trees[cu], id);

	if (slot && (!need_call || st->dies[slot - 1].has_call))
		return &st->dies[slot - 1];
	return scope_info_read(st, cu, id, need_call, tmp);
}

/*
 * The frames of chain ids[0..n) of unit cu's tree, its subprograms and inlined subroutines
 * outermost first, into out; the innermost one's file, line and discriminator are left for
 * the caller (the address's row). Returns how many.
 */
static int chain_frames(struct symbolize_symtab *st, size_t cu, const uint32_t *ids, int n,
			struct symbolize_sym_frame *out)
{
	struct symbolize_scopetree *t = &st->trees[cu];
	int i, k, fn[MAX_DEPTH], nfn = 0;

	for (i = 0; i < n; i++) {
		int tag = symbolize_scopetree_tag(t, ids[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			fn[nfn++] = i;
	}
	for (k = 0; k < nfn; k++) {
		struct die_info tmp, *d = scope_info(st, cu, ids[fn[k]], 0, &tmp);
		struct symbolize_sym_frame *f = &out[k];

		f->name = d->name;
		f->start_line = d->decl_line;
		f->unit = d->unit;
		f->file = SYMBOLIZE_NO_NAME;
		f->line = f->discr = 0;
		f->inl = 0;
		if (k) {
			Dwarf_Die die;

			symbolize_scopetree_die(t, ids[fn[k]], &die);
			f->inl = inl_handle(st, &st->cus[cu], &die);
		}
		if (k + 1 < nfn) {
			/* this frame's line is where the next inner frame was inlined */
			d = scope_info(st, cu, ids[fn[k + 1]], 1, &tmp);
			f->file = d->call_file;
			f->line = d->call_line;
			f->discr = d->call_discr;
		}
	}
	return nfn;
}

/* A row's file, line and discriminator into the innermost frame f. */
static void row_leaf(struct symbolize_symtab *st, struct cu_lines *l, const struct symbolize_line *row,
		     struct symbolize_sym_frame *f)
{
	f->file = file_id(st, l, row->file);
	f->line = row->line > 0 ? (uint32_t)row->line : 0;
	f->discr = row->discr;
}

/* The line-table row of pc in cudie's unit: file, line, discriminator; zeros if none. */
static void leaf_of(struct symbolize_symtab *st, Dwarf_Die *cudie, struct cu_lines *l, Dwarf_Addr pc,
		    struct symbolize_sym_frame *f)
{
	Dwarf_Line *dl;

	f->file = SYMBOLIZE_NO_NAME;
	f->line = f->discr = 0;
	if (l) {
		size_t ix = symbolize_linetab_find(&l->t, pc);

		if (ix != SIZE_MAX)
			row_leaf(st, l, symbolize_linetab_row(&l->t, ix), f);
	} else if ((dl = dwarf_getsrc_die(cudie, pc))) {
		int line = 0;
		unsigned int disc = 0;

		dwarf_lineno(dl, &line);
		dwarf_linediscriminator(dl, &disc);
		f->file = intern_file(st, dwarf_linesrc(dl, NULL, NULL));
		f->line = line > 0 ? (uint32_t)line : 0;
		f->discr = disc;
	}
}

/*
 * The frames of pc's inline chain in cudie's unit, the innermost without its line, into
 * out. Addresses are mostly asked about in order (the sampled ones sorted, a function's
 * lines): the last chain is reused while pc stays where no scope begins or ends. With
 * gen, out holds the chain of span generation *gen already and is not copied again while
 * it is the same (but for the innermost frame's line, which the caller sets): the copy
 * for each line of a function was 1% of a convert.
 */
static int frames_at(struct symbolize_symtab *st, Dwarf_Die *cudie, Dwarf_Addr pc,
		     struct symbolize_sym_frame *out, uint64_t *gen)
{
	size_t cu = (size_t)(cudie - st->cus);
	struct span *sp = &st->span;

	if (!sp->valid || sp->cu != cu || pc < sp->lo || pc >= sp->end) {
		uint32_t chain[MAX_DEPTH];
		int n;

		sp->valid = 0;
		if (!st->have_tree[cu]) {
			if (symbolize_scopetree_build(&st->trees[cu], &st->scope_dies[cu],
						    st->have_secs ? &st->secs : NULL,
						    MAX_DEPTH) < 0)
				return 0;
			st->have_tree[cu] = 1;
		}
		n = symbolize_scopetree_chain_ids(&st->trees[cu], pc, chain, MAX_DEPTH, &sp->end);
		if (n < 0)
			return 0;
		sp->nr = chain_frames(st, cu, chain, n, sp->frames);
		sp->cu = cu;
		sp->lo = pc;
		sp->valid = 1;
		sp->gen++;
	}
	if (!gen || *gen != sp->gen) {
		memcpy(out, sp->frames, (size_t)sp->nr * sizeof(*out));
		if (gen)
			*gen = sp->gen;
	}
	return sp->nr;
}

/* Build the inline chain of addr into st->frames, outermost first. */
static void resolve_frames(struct symbolize_symtab *st, uint64_t addr, struct cached *c)
{
	struct symbolize_sym_frame frames[MAX_DEPTH];
	struct cu_lines *l;
	Dwarf_Die *cudie;
	Dwarf_Addr pc;
	int n, k;

	c->first = st->nr_frames;
	c->nr = 0;
	cudie = unit_of(st, addr, 1, &l);
	if (!cudie)
		return;
	pc = addr - st->dwbias;
	n = frames_at(st, cudie, pc, frames, NULL);
	if (n)
		leaf_of(st, cudie, l, pc, &frames[n - 1]);
	for (k = 0; k < n; k++) {
		if (push_frame(st, &frames[k]) < 0)
			return;
		c->nr++;
	}
}

/* Resolve addr into c: its ELF symbol and its inline chain, appended to st->frames. */
static void resolve(struct symbolize_symtab *st, uint64_t addr, struct cached *c)
{
	const struct fsym *fs = sym_of(st, addr);

	memset(c, 0, sizeof(*c));
	c->sym_name = fs ? fs->name : SYMBOLIZE_NO_NAME;
	c->sym_start = fs ? fs->start : 0;
	c->sym_size = fs ? fs->size : 0;
	resolve_frames(st, addr, c);
}

static struct symbolize_sym sym_view(const struct symbolize_symtab *st, const struct cached *c)
{
	struct symbolize_sym out;

	out.sym_name = c->sym_name;
	out.sym_start = c->sym_start;
	out.sym_size = c->sym_size;
	out.nr_frames = c->nr;
	out.frames = c->nr ? &st->frames[c->first] : NULL;
	return out;
}

struct symbolize_sym symbolize_symtab_lookup(struct symbolize_symtab *st, uint64_t addr)
{
	struct symbolize_sym out = { SYMBOLIZE_NO_NAME, 0, 0, 0, NULL };
	uint64_t *slot;
	struct cached *c;
	int ret;

	ret = pgo_u64map_get(&st->cache, addr, &slot);
	if (ret < 0)
		return out;
	if (ret == 0)
		return sym_view(st, &st->results[*slot - 1]);
	if (PGO_ALLOC_GROW_UNINIT(st->results, st->nr_results + 1, st->alloc_results) < 0) {
		*slot = 0;
		return out;
	}
	c = &st->results[st->nr_results++];
	*slot = st->nr_results;
	resolve(st, addr, c);
	return sym_view(st, c);
}

/*
 * Resolve addr as symbolize_symtab_lookup does, without keeping the result unless it was
 * cached already: for addresses asked about once. Valid until the next lookup.
 */
static struct symbolize_sym resolve_once(struct symbolize_symtab *st, uint64_t addr)
{
	const uint64_t *slot = pgo_u64map_find(&st->cache, addr);
	struct symbolize_sym out;
	struct cached c;

	/* a 0 slot: lookup could not keep it */
	if (slot && *slot)
		return sym_view(st, &st->results[*slot - 1]);
	resolve(st, addr, &c);
	out = sym_view(st, &c);
	/* give the frames back: they stay in place until the next lookup appends */
	st->nr_frames = c.first;
	return out;
}

/* A walk over a unit's rows in [start, start + size) (module addresses), once per address. */
struct row_walk {
	const struct symbolize_linetab *t;
	size_t i;
	uint64_t start, size, bias, prev;
	bool have_prev;
};

static void walk_init(struct row_walk *w, const struct symbolize_linetab *t, uint64_t start,
		      uint64_t size, uint64_t bias)
{
	w->t = t;
	w->i = start < bias ? t->nr_rows : symbolize_linetab_lower(t, start - bias);
	w->start = start;
	w->size = size;
	w->bias = bias;
	w->have_prev = false;
}

/* The next row at a new address (*addr), or NULL; rows sharing an address are adjacent. */
static const struct symbolize_line *walk_next(struct row_walk *w, uint64_t *addr)
{
	for (; w->i < w->t->nr_rows; w->i++) {
		const struct symbolize_line *r = symbolize_linetab_row(w->t, w->i);
		uint64_t a = symbolize_line_addr(w->t, r) + w->bias;

		if (a - w->start >= w->size)
			break;
		if (r->end_seq || (w->have_prev && a == w->prev))
			continue;
		w->have_prev = true;
		w->prev = *addr = a;
		w->i++;
		return r;
	}
	return NULL;
}

int symbolize_symtab_foreach_line_addr(struct symbolize_symtab *st, uint64_t start, uint64_t size,
				     int (*fn)(uint64_t addr, void *data), void *data)
{
	Dwarf_Die *cudie;
	Dwarf_Addr cubias;
	Dwarf_Lines *lines;
	struct cu_lines *cl;
	Dwarf_Addr prev = 0;
	bool have_prev = false;
	size_t nlines, i, lo, hi;

	cubias = st->dwbias;
	cudie = unit_of(st, start, size, &cl);
	if (!cudie)
		return 0;
	if (cl) {
		struct row_walk w;
		uint64_t a;
		int ret;

		walk_init(&w, &cl->t, start, size, cubias);
		while (walk_next(&w, &a))
			if ((ret = fn(a, data)))
				return ret;
		return 0;
	}
	if (dwarf_getsrclines(cudie, &lines, &nlines) != 0)
		return 0;
	/* libdw sorts a CU's rows by address: binary search the first one >= start */
	lo = 0;
	hi = nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a) != 0 || a + cubias < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* equal addresses may precede lo in another sequence: back up over them */
	while (lo > 0) {
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, lo - 1), &a) != 0 || a + cubias < start)
			break;
		lo--;
	}
	for (i = lo; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end;
		int ret;

		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineendsequence(l, &end) != 0)
			continue;
		a += cubias;
		if (a - start >= size && a >= start)
			break;
		/* rows that share an address (views, is_stmt changes) are adjacent: one call */
		if (end || a < start || (have_prev && a == prev))
			continue;
		have_prev = true;
		prev = a;
		ret = fn(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

struct each_addr {
	struct symbolize_symtab *st;
	int (*fn)(const struct symbolize_sym *sym, void *data);
	void *data;
};

static int resolve_each(uint64_t addr, void *data)
{
	struct each_addr *e = data;
	struct symbolize_sym sym = resolve_once(e->st, addr);

	return e->fn(&sym, e->data);
}

/*
 * The unit cu_of gives pc (NULL if none), through *span: the addresses [lo, hi) where it
 * gives span->cu without a search, those of the range it found below the next range's
 * start. For the lines of a function, one per row: the call was 1% of a convert.
 */
struct cu_span {
	uint64_t lo, hi;
	Dwarf_Die *cu;
};

static Dwarf_Die *cu_of_span(struct symbolize_symtab *st, Dwarf_Addr pc, struct cu_span *span)
{
	const struct cu_range *r;
	Dwarf_Die *cu;

	if (pc >= span->lo && pc < span->hi)
		return span->cu;
	cu = cu_of(st, pc);
	span->lo = span->hi = 0;
	if (cu && st->last_range < st->nr_ranges) {
		r = &st->ranges[st->last_range];
		/* what cu_of's first test takes: ranges sorted by start make it the only answer */
		if (pc >= r->lo && pc < r->hi && (st->last_range + 1 == st->nr_ranges || pc < r[1].lo)) {
			span->lo = r->lo;
			span->hi = st->last_range + 1 == st->nr_ranges || r->hi < r[1].lo ? r->hi : r[1].lo;
			span->cu = cu;
		}
	}
	return cu;
}

int symbolize_symtab_foreach_line(struct symbolize_symtab *st, uint64_t start, uint64_t size,
				int (*fn)(const struct symbolize_sym *sym, void *data), void *data)
{
	struct each_addr e = { st, fn, data };
	struct symbolize_sym_frame frames[MAX_DEPTH];
	struct cu_span span = { 0, 0, NULL };
	const struct fsym *fs = NULL;
	uint64_t fs_lo = 1, fs_hi = 0;  /* the addresses fs holds for (none yet) */
	size_t cu;
	struct row_walk w;
	Dwarf_Die *cudie;
	Dwarf_Addr cubias, pc;
	struct cu_lines *l;
	uint64_t a, gen = 0;           /* frames holds span generation gen's chain (0: none) */
	int32_t prev = 0;
	bool have_prev = false;
	size_t i;
	int ret;

	cubias = st->dwbias;
	cudie = unit_of(st, start, size, &l);
	if (!cudie)
		return 0;
	if (!l)
		return symbolize_symtab_foreach_line_addr(st, start, size, resolve_each, &e);
	cu = (size_t)(cudie - st->cus);
	walk_init(&w, &l->t, start, size, cubias);
	/*
	 * walk_next's walk, with the rows of one address taken together: the last of them is
	 * dwarf_getsrc_die's row for it (ends sort first). The table is looked up again after
	 * each call out (a lookup may read it again).
	 */
	for (i = w.i; i < l->t.nr_rows;) {
		const struct symbolize_line *r = symbolize_linetab_row(&l->t, i), *last = r;
		const struct symbolize_line *rend = l->t.rows + l->t.nr_rows;
		struct symbolize_sym sym;

		a = symbolize_line_addr(&l->t, r) + cubias;
		if (a - start >= size)
			break;
		if (r->end_seq || (have_prev && r->off == prev)) {
			i++;
			continue;
		}
		have_prev = true;
		prev = r->off;
		while (last + 1 < rend && last[1].off == r->off)
			last++;
		i = (size_t)(last - l->t.rows) + 1;
		/* resolved here as lookup would, sampled or not: cheaper than asking the cache */
		pc = a - cubias;
		if (cu_of_span(st, pc, &span) != cudie) {
			/* claimed by another unit's ranges: as lookup has it */
			sym = resolve_once(st, a);
		} else {
			/*
			 * Rows come in address order: the chain changes only at a scope boundary.
			 * frames_at's test that frames holds it, inline (the call per row was
			 * 1% of a convert).
			 */
			const struct span *sp = &st->span;
			int nfr = sp->valid && sp->cu == cu && pc >= sp->lo && pc < sp->end && gen == sp->gen
				  ? sp->nr : frames_at(st, cudie, pc, frames, &gen);

			/* the previous row's symbol, while no other symbol starts in between */
			if (a < fs_lo || a >= fs_hi) {
				fs = sym_of(st, a);
				fs_lo = 1;
				fs_hi = 0;
				if (fs) {
					fs_lo = fs->start;
					fs_hi = fs + 1 < st->syms + st->nr_syms ? fs[1].start : UINT64_MAX;
					if (fs->size && fs->size < fs_hi - fs->start)
						fs_hi = fs->start + fs->size;
				}
			}
			sym.sym_name = fs ? fs->name : SYMBOLIZE_NO_NAME;
			sym.sym_start = fs ? fs->start : 0;
			sym.sym_size = fs ? fs->size : 0;
			if (nfr)
				row_leaf(st, l, last, &frames[nfr - 1]);
			sym.nr_frames = (uint32_t)nfr;
			sym.frames = nfr ? frames : NULL;
		}
		if ((ret = fn(&sym, data)))
			return ret;
	}
	return 0;
}
