// SPDX-License-Identifier: MIT
/* The gcov route: samples -> block counts -> arc counts -> .gcda (convert/gcov.h). */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/flow.h"
#include "convert/gcda.h"
#include "convert/gcno.h"
#include "convert/gcov.h"
#include "convert/internal.h"
#include "lib/alloc.h"
#include "lib/hashmap.h"
#include "lib/report.h"

/*
 * Weights of a block's estimate (cost per sample away from it) and costs of arcs (per
 * sample through them): a line only this block has is a good witness, a line several
 * blocks share (a for loop's header: its init, test and step) a weaker one; an arc costs
 * little, so that flow follows the CFG rather than leaving an estimate unmet, unless it
 * is a fake arc (a call that may not return), which real executions rarely take.
 */
#define W_UNIQUE 1024
#define W_SHARED 256
#define W_ENTRY (64 * W_UNIQUE)
#define COST_ARC 1
#define COST_FAKE (4 * W_UNIQUE)
#define MAX_DEPTH 64

struct gfn {
	uint32_t note, fn;             /* notes[note].fns[fn] */
	uint32_t next;                 /* the next notes function of the same name, index + 1 */
	int has_code;                  /* some line of it has code in a selected binary */
	int sampled;                   /* some line of it has a sample */
};

/* A (function, file base name, line) of the notes. */
struct lent {
	uint32_t gfn, base, line;
	uint32_t nr_blocks;            /* the blocks that list it */
	int has_code;
	uint64_t count;                /* summed over copies, after collect_counts */
};

struct route {
	struct convert_profile *p;
	struct convert_gcno *notes;
	size_t nr_notes;
	struct gfn *fns;
	size_t nr_fns;
	struct pgo_u64map by_name;     /* profile string id -> gfn index + 1 */
	struct lent *lines;
	size_t nr_lines, alloc_lines;
	struct pgo_u64map line_ix;     /* hash of the triple -> lines index + 1 */
	struct pgo_u64map base_of;     /* profile string id of a path -> id of its base name + 1 */
	struct pgo_u64map ctx_max;     /* hash(copy, line) -> largest count of an instruction */
	struct pgo_u64map ctx_line;    /* the same key -> lines index */
	struct pgo_u64map symbols;     /* profile string ids of the binaries' function symbols,
					  clone suffixes cut */
	uint64_t mapped;
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The profile string id of the base name of profile string id, or -1. */
static long base_id(struct route *R, uint32_t id)
{
	uint64_t *v;
	long b;

	if ((v = pgo_u64map_find(&R->base_of, id)))
		return (long)*v - 1;
	b = pgo_strtab_intern(&R->p->strs, base_name(convert_str(R->p, id)));
	if (b < 0 || pgo_u64map_put(&R->base_of, id, (uint64_t)b + 1) < 0)
		return pgo_error("out of memory");
	return b;
}

/* The line entry of (gfn, base, line): its index, -1 if absent (and !create) or on error. */
static long lent_find(struct route *R, uint32_t gfn, uint32_t base, uint32_t line, int create)
{
	uint32_t t[3] = { gfn, base, line };
	uint64_t key = pgo_hash_bytes(t, sizeof(t)), *v;

	/* a different triple with the same hash moves on to the next key */
	for (;; key++) {
		const struct lent *l;

		v = pgo_u64map_find(&R->line_ix, key);
		if (!v)
			break;
		l = &R->lines[*v - 1];
		if (l->gfn == gfn && l->base == base && l->line == line)
			return (long)*v - 1;
	}
	if (!create)
		return -1;
	if (PGO_ALLOC_GROW(R->lines, R->nr_lines + 1, R->alloc_lines) < 0 ||
	    pgo_u64map_put(&R->line_ix, key, R->nr_lines + 1) < 0)
		return pgo_error("out of memory");
	memset(&R->lines[R->nr_lines], 0, sizeof(R->lines[0]));
	R->lines[R->nr_lines].gfn = gfn;
	R->lines[R->nr_lines].base = base;
	R->lines[R->nr_lines].line = line;
	return (long)R->nr_lines++;
}

/* Every notes function by name, and every line of theirs. */
static int index_notes(struct route *R)
{
	size_t i, k, n = 0;
	uint32_t last_block = UINT32_MAX;

	for (i = 0; i < R->nr_notes; i++)
		n += R->notes[i].nr_fns;
	R->fns = pgo_calloc(n ? n : 1, sizeof(*R->fns));
	if (!R->fns)
		return -1;
	for (i = 0; i < R->nr_notes; i++) {
		const struct convert_gcno *g = &R->notes[i];

		for (k = 0; k < g->nr_fns; k++) {
			const struct convert_gcno_fn *f = &g->fns[k];
			uint32_t ix = (uint32_t)R->nr_fns++;
			long name = pgo_strtab_intern(&R->p->strs, pgo_strtab_str(&g->strs, f->name));
			uint64_t *head;
			size_t j;

			if (name < 0 || pgo_u64map_get(&R->by_name, (uint64_t)name, &head) < 0)
				return pgo_error("out of memory");
			R->fns[ix].note = (uint32_t)i;
			R->fns[ix].fn = (uint32_t)k;
			R->fns[ix].next = (uint32_t)*head;
			*head = ix + 1;
			for (j = 0; j < f->nr_lines; j++) {
				const struct convert_gcno_line *gl = &f->lines[j];
				long base = pgo_strtab_intern(&R->p->strs,
							      base_name(pgo_strtab_str(&g->strs, gl->file)));
				long li = base < 0 ? -1 : lent_find(R, ix, (uint32_t)base, gl->line, 1);

				if (li < 0)
					return pgo_error("out of memory");
				/* gcc lists a line once per block; a block's lines are one record */
				if (j == 0 || gl->block != last_block || R->lines[li].nr_blocks == 0)
					R->lines[li].nr_blocks++;
				last_block = gl->block;
			}
		}
	}
	return 0;
}

/*
 * sym's address counts `count` for the notes lines it reaches (count 0: marks them as
 * having code). Returns 1 if some line counted, 0 if none, -1 on error.
 */
static int map_sym(struct route *R, const struct symbolize_sym *sym, uint64_t count)
{
	uint32_t n = sym->nr_frames < MAX_DEPTH ? sym->nr_frames : MAX_DEPTH, k;
	int matched = 0;

	if (sym->sym_name == SYMBOLIZE_NO_NAME || !n)
		return 0;
	for (k = 0; k < n; k++) {
		const uint64_t *head = pgo_u64map_find(&R->by_name, sym->frames[k].name);
		uint32_t g;

		for (g = head ? (uint32_t)*head : 0; g; g = R->fns[g - 1].next) {
			uint32_t j = n;

			while (j-- > k) {
				const struct symbolize_sym_frame *fr = &sym->frames[j];
				long base, li;

				if (fr->file == SYMBOLIZE_NO_NAME || !fr->line)
					continue;
				if ((base = base_id(R, fr->file)) < 0)
					return -1;
				if ((li = lent_find(R, g - 1, (uint32_t)base, fr->line, 0)) < 0)
					continue;
				R->lines[li].has_code = 1;
				R->fns[g - 1].has_code = 1;
				if (count) {
					/* the copy: the symbol, the chain above j, j's discriminator */
					uint64_t key[2 + 3 * MAX_DEPTH], h, *m;
					uint32_t i, nk = 0;

					key[nk++] = sym->sym_name;
					key[nk++] = (uint64_t)li << 32 | fr->discr;
					for (i = 0; i < j; i++) {
						key[nk++] = sym->frames[i].name;
						key[nk++] = sym->frames[i].line;
						key[nk++] = sym->frames[i].discr;
					}
					h = pgo_hash_bytes(key, nk * sizeof(key[0]));
					if (pgo_u64map_get(&R->ctx_max, h, &m) < 0)
						return pgo_error("out of memory");
					if (*m < count)
						*m = count;
					if (pgo_u64map_put(&R->ctx_line, h, (uint64_t)li) < 0)
						return pgo_error("out of memory");
					matched = 1;
					R->fns[g - 1].sampled = 1;
				}
				break;
			}
		}
	}
	return matched;
}

static int add_symbol(uint32_t name, void *data)
{
	struct route *R = data;
	const char *s = convert_str(R->p, name), *dot = strchr(s, '.');
	long id = dot && dot != s ? pgo_strtab_intern_len(&R->p->strs, s, (size_t)(dot - s)) : (long)name;

	return id < 0 || pgo_u64map_put(&R->symbols, (uint64_t)id, 1) < 0 ? pgo_error("out of memory") : 0;
}

static int mark_code(const struct symbolize_sym *sym, void *data)
{
	return map_sym(data, sym, 0) < 0 ? -1 : 0;
}

static int collect_counts(struct route *R)
{
	struct convert_profile *p = R->p;
	size_t b, i;

	for (b = 0; b < p->nr_bins; b++) {
		struct convert_binary *bin = &p->bins[b];
		struct pgo_u64map funcs = PGO_U64MAP_INIT;

		if (symbolize_symtab_foreach_function(bin->st, add_symbol, R))
			return -1;
		for (i = 0; i < bin->counts.cap; i++) {
			const struct pgo_u64map_slot *s = &bin->counts.slots[i];
			struct symbolize_sym sym;
			int m;

			if (!s->used || !s->value)
				continue;
			sym = symbolize_symtab_lookup(bin->st, s->key);
			if (sym.sym_name != SYMBOLIZE_NO_NAME && sym.sym_size &&
			    pgo_u64map_put(&funcs, sym.sym_start, sym.sym_size) < 0) {
				pgo_u64map_release(&funcs);
				return pgo_error("out of memory");
			}
			if ((m = map_sym(R, &sym, s->value)) < 0) {
				pgo_u64map_release(&funcs);
				return -1;
			}
			if (m)
				R->mapped += s->value;
		}
		/* lines with code in the sampled functions: a zero there is a measured zero */
		for (i = 0; i < funcs.cap; i++) {
			const struct pgo_u64map_slot *s = &funcs.slots[i];

			if (s->used && symbolize_symtab_foreach_line(bin->st, s->key, s->value, mark_code, R)) {
				pgo_u64map_release(&funcs);
				return -1;
			}
		}
		pgo_u64map_release(&funcs);
	}
	for (i = 0; i < R->ctx_max.cap; i++) {
		const struct pgo_u64map_slot *s = &R->ctx_max.slots[i];
		const uint64_t *li;

		if (s->used && (li = pgo_u64map_find(&R->ctx_line, s->key)))
			R->lines[*li].count += s->value;
	}
	return 0;
}

/* The counters of notes function gfn (f->nr_counted of them, in notes order) into out. */
static int solve_fn(struct route *R, uint32_t gfn, uint64_t *out, uint64_t *max)
{
	const struct convert_gcno *g = &R->notes[R->fns[gfn].note];
	const struct convert_gcno_fn *f = &g->fns[R->fns[gfn].fn];
	struct convert_flow_block *blk = pgo_calloc(f->nr_blocks, sizeof(*blk));
	struct convert_flow_arc *arcs = pgo_calloc(f->nr_arcs + 1, sizeof(*arcs));
	uint64_t *flow = pgo_calloc(f->nr_arcs + 1, sizeof(*flow));
	size_t i, k;
	int ret = -1;

	if (!blk || !arcs || !flow)
		goto out;
	for (i = 0; i < f->nr_lines; i++) {
		const struct convert_gcno_line *gl = &f->lines[i];
		long base = pgo_strtab_find(&R->p->strs, base_name(pgo_strtab_str(&g->strs, gl->file)));
		long li = base < 0 ? -1 : lent_find(R, gfn, (uint32_t)base, gl->line, 0);
		const struct lent *l;
		uint32_t w;

		if (li < 0 || !(l = &R->lines[li])->has_code)
			continue;
		/* lines of this block alone decide; shared lines only when it has none */
		w = l->nr_blocks == 1 ? W_UNIQUE : W_SHARED;
		if (w < blk[gl->block].weight)
			continue;
		if (w > blk[gl->block].weight)
			blk[gl->block].estimate = 0;
		blk[gl->block].weight = w;
		if (l->count > blk[gl->block].estimate)
			blk[gl->block].estimate = l->count;
	}
	/*
	 * A function with code in sampled functions was entered, at least once: its entry
	 * block counts at least 1, whatever the blocks run once per call say (sampled or not,
	 * their zeros are small numbers). Otherwise a loop's samples would circulate in a
	 * function gcc reads as never entered, and an unsampled callee inlined into a
	 * sampled caller would count 0 under a call that ran.
	 */
	blk[0].estimate = 1;
	blk[0].weight = W_ENTRY;
	blk[0].over = COST_ARC;
	for (i = 0; i < f->nr_arcs; i++) {
		arcs[i].src = f->arcs[i].src;
		arcs[i].dst = f->arcs[i].dst;
		arcs[i].cost = f->arcs[i].flags & GCNO_ARC_FAKE ? COST_FAKE : COST_ARC;
	}
	if (convert_flow_solve(f->nr_blocks, 0, 1, blk, arcs, f->nr_arcs, flow) < 0)
		goto out;
	for (i = k = 0; i < f->nr_arcs; i++) {
		if (f->arcs[i].flags & GCNO_ARC_ON_TREE)
			continue;
		out[k++] = flow[i];
		if (flow[i] > *max)
			*max = flow[i];
	}
	ret = 0;
out:
	if (ret < 0 && (!blk || !arcs || !flow))
		pgo_error("out of memory");
	free(blk);
	free(arcs);
	free(flow);
	return ret;
}

char *convert_gcov_output_path(const struct convert_gcov_options *o, const char *gcno)
{
	size_t len = strlen(gcno);
	char *dir, *abs, *rel, *out = NULL, *m;
	const char *slash;

	if (len < 5 || strcmp(gcno + len - 5, ".gcno")) {
		pgo_error("%s: not a .gcno file name", gcno);
		return NULL;
	}
	if (!o->out_dir) {
		out = pgo_strdup(gcno);
		if (out)
			memcpy(out + len - 5, ".gcda", 5);
		return out;
	}
	/* -fprofile-use=DIR: the object's absolute path, the prefix removed, '/' as '#' */
	slash = strrchr(gcno, '/');
	dir = slash ? pgo_strndup(gcno, (size_t)(slash - gcno) + (slash == gcno)) : pgo_strdup(".");
	abs = dir ? realpath(dir, NULL) : NULL;
	if (!abs) {
		if (dir)
			pgo_error_errno("%s: cannot resolve its directory", gcno);
		free(dir);
		return NULL;
	}
	free(dir);
	if (asprintf(&rel, "%s/%.*s", abs, (int)(strlen(base_name(gcno)) - 5), base_name(gcno)) < 0) {
		free(abs);
		pgo_error("out of memory");
		return NULL;
	}
	free(abs);
	m = rel;
	if (o->prefix_path && *o->prefix_path) {
		size_t pl = strlen(o->prefix_path);

		while (pl > 1 && o->prefix_path[pl - 1] == '/')
			pl--;
		if (strncmp(rel, o->prefix_path, pl) || (rel[pl] != '/' && rel[pl] != '\0' && pl > 1)) {
			pgo_error("%s: its path %s does not start with the prefix %s (as gcc -fprofile-prefix-path "
				  "would say); give the build directory the objects were compiled in",
				  gcno, rel, o->prefix_path);
			free(rel);
			return NULL;
		}
		m += pl;
		while (*m == '/')
			m++;
	}
	/* gcc's mangle_path: each '/' becomes '#', a ".." component '^' */
	{
		size_t n = strlen(m);
		char *buf = malloc(n + 1), *q = buf;
		const char *c = m;

		if (!buf) {
			free(rel);
			pgo_error("out of memory");
			return NULL;
		}
		while (*c) {
			const char *e = strchr(c, '/');
			size_t cl = e ? (size_t)(e - c) : strlen(c);

			if (cl == 2 && c[0] == '.' && c[1] == '.') {
				*q++ = '^';
			} else {
				memcpy(q, c, cl);
				q += cl;
			}
			c += cl;
			if (*c == '/') {
				*q++ = '#';
				c++;
			}
		}
		*q = '\0';
		if (asprintf(&out, "%s/%s.gcda", o->out_dir, buf) < 0)
			out = NULL;
		free(buf);
	}
	free(rel);
	if (!out)
		pgo_error("out of memory");
	return out;
}

static char ***find_list;
static size_t *find_nr, *find_alloc;

static int find_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t len = strlen(path);

	(void)st;
	(void)ftw;
	if (type != FTW_F || len < 5 || strcmp(path + len - 5, ".gcno"))
		return 0;
	if (PGO_ALLOC_GROW(*find_list, *find_nr + 1, *find_alloc) < 0)
		return -1;
	if (!((*find_list)[*find_nr] = pgo_strdup(path)))
		return -1;
	(*find_nr)++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int convert_gcov_find_notes(const char *dir, char ***list, size_t *nr, size_t *alloc)
{
	size_t first = *nr;
	int r;

	find_list = list;
	find_nr = nr;
	find_alloc = alloc;
	errno = 0;
	r = nftw(dir, find_one, 32, FTW_PHYS);
	if (r) {
		if (r < 0 && errno)
			return pgo_error_errno("--gcno-dir %s", dir);
		return pgo_error("out of memory");
	}
	if (*nr == first)
		return pgo_error("--gcno-dir %s: no .gcno files there; build with -ftest-coverage "
				 "(gcc -O2 -g -ftest-coverage) first", dir);
	qsort(*list + first, *nr - first, sizeof(**list), cmp_str);
	return 0;
}

/*
 * gcc's early partial inlining (pass_split_functions) splits a function into its head and
 * an artificial foo.part.N before the notes are written, unless profile feedback is on:
 * a -fprofile-use compile keeps foo whole and expects the counters of the whole, so the
 * notes of a split function cannot give them (gcc: "number of counters in profile data
 * for function 'foo' does not match", an error by default). Debian's bzip2 splits mainGtU.
 */
static int check_split(const char *path, const struct convert_gcno *g)
{
	size_t i;

	for (i = 0; i < g->nr_fns; i++) {
		const char *name = pgo_strtab_str(&g->strs, g->fns[i].name);

		if (g->fns[i].artificial && strstr(name, ".part."))
			return pgo_error("%s: gcc split a function into %s (partial inlining) before it "
					 "wrote these notes, which gcc -fprofile-use does not do, so no counts "
					 "can match it: compile the notes with -fno-partial-inlining as well "
					 "(gcc -O2 -g -ftest-coverage -fno-partial-inlining; docs/gcov.md)",
					 path, name);
	}
	return 0;
}

static void route_release(struct route *R)
{
	size_t i;

	for (i = 0; i < R->nr_notes; i++)
		convert_gcno_release(&R->notes[i]);
	free(R->notes);
	free(R->fns);
	free(R->lines);
	pgo_u64map_release(&R->by_name);
	pgo_u64map_release(&R->line_ix);
	pgo_u64map_release(&R->base_of);
	pgo_u64map_release(&R->ctx_max);
	pgo_u64map_release(&R->ctx_line);
	pgo_u64map_release(&R->symbols);
}

/* The notes with code in the binaries: their counters, then their files. */
static int write_all(struct route *R, const struct convert_gcov_options *o, struct convert_gcov_summary *s)
{
	uint64_t ***counts = pgo_calloc(R->nr_notes ? R->nr_notes : 1, sizeof(*counts));
	uint64_t max = 0;
	size_t i, k, gfn = 0;
	int ret = -1;

	if (!counts)
		return -1;
	for (i = 0; i < R->nr_notes; i++) {
		const struct convert_gcno *g = &R->notes[i];
		int any = 0;

		/* a function of the binaries that ran too little to be sampled gets zeros */
		for (k = 0; k < g->nr_fns; k++) {
			long name = pgo_strtab_find(&R->p->strs, pgo_strtab_str(&g->strs, g->fns[k].name));

			any |= R->fns[gfn + k].has_code ||
			       (name >= 0 && pgo_u64map_find(&R->symbols, (uint64_t)name));
		}
		if (!any) {
			gfn += g->nr_fns;
			continue;
		}
		if (!(counts[i] = pgo_calloc(g->nr_fns ? g->nr_fns : 1, sizeof(*counts[i]))))
			goto out;
		for (k = 0; k < g->nr_fns; k++, gfn++) {
			const struct convert_gcno_fn *f = &g->fns[k];

			s->functions++;
			s->sampled_functions += R->fns[gfn].has_code;
			if (!f->nr_counted || !R->fns[gfn].has_code)
				continue;
			if (!(counts[i][k] = pgo_calloc(f->nr_counted, sizeof(uint64_t))) ||
			    solve_fn(R, (uint32_t)gfn, counts[i][k], &max) < 0)
				goto out;
		}
	}
	for (i = 0; i < R->nr_notes; i++) {
		char *path;

		/* notes without functions (tables of data) need no counts */
		if (!counts[i] && !R->notes[i].nr_fns)
			continue;
		if (!counts[i]) {
			s->skipped_files++;
			pgo_warn("%s: none of its functions is in the profiled binaries; no .gcda "
				 "written (its object is not linked into them, or give its binary with -b)",
				 o->notes[i]);
			continue;
		}
		if (!(path = convert_gcov_output_path(o, o->notes[i])))
			goto out;
		if (convert_gcda_write(path, &R->notes[i], counts[i], max) < 0) {
			free(path);
			goto out;
		}
		pgo_debug(1, "%s: %zu functions", path, R->notes[i].nr_fns);
		free(path);
		s->files++;
	}
	s->max_count = max;
	ret = 0;
out:
	for (i = 0; i < R->nr_notes; i++) {
		if (!counts[i])
			continue;
		for (k = 0; k < R->notes[i].nr_fns; k++)
			free(counts[i][k]);
		free(counts[i]);
	}
	free(counts);
	return ret;
}

int convert_gcov_write(struct convert_profile *p, const struct convert_gcov_options *o,
		       struct convert_gcov_summary *s)
{
	struct route R;
	size_t i;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	memset(&R, 0, sizeof(R));
	R.p = p;
	if (!o->nr_notes)
		return pgo_error("no .gcno notes given (--gcno-dir DIR or .gcno files)");
	R.notes = pgo_calloc(o->nr_notes, sizeof(*R.notes));
	if (!R.notes)
		return -1;
	for (i = 0; i < o->nr_notes; i++) {
		if (convert_gcno_read(o->notes[i], &R.notes[i]) < 0)
			goto out;
		R.nr_notes++;
		if (check_split(o->notes[i], &R.notes[i]) < 0)
			goto out;
	}
	if (index_notes(&R) < 0 || collect_counts(&R) < 0)
		goto out;
	s->samples_mapped = R.mapped;
	if (!R.mapped) {
		pgo_error("no sample fell on a line of the notes' functions: are the notes (%s, ...) "
			  "from the build of the profiled binary %s?", o->notes[0],
			  p->nr_bins ? p->bins[0].path : "?");
		goto out;
	}
	ret = write_all(&R, o, s);
out:
	route_release(&R);
	return ret;
}
