// SPDX-License-Identifier: MIT
/*
 * The gate's view of a "pgo-profile" JSON: per-run sample-equivalent counts of
 * clone-folded stacks. Parsing and validation are convert's (convert/profile_json.h),
 * so the writer and both readers agree on one contract; this file only reshapes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "convert/profile_json.h"
#include "gate/profile.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

static const char *const view_names[GATE_VIEW_NR] = { "cpu", "offcpu", "wall" };

const char *gate_view_name(enum gate_view_kind v)
{
	return v < GATE_VIEW_NR ? view_names[v] : "?";
}

int gate_view_parse(const char *name)
{
	int i;

	for (i = 0; i < GATE_VIEW_NR; i++)
		if (!strcmp(name, view_names[i]))
			return i;
	return -1;
}

static int all_digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Length of name without its last clone suffix, or len if it has none. */
static size_t strip_one_suffix(const char *name, size_t len)
{
	static const char *const numbered[] = { "isra", "constprop", "part", "llvm", "lto_priv",
						"cold" };
	const char *dot;
	size_t i, tail;

	dot = memrchr(name, '.', len);
	if (!dot || dot == name)
		return len;
	tail = len - (size_t)(dot - name) - 1;
	if (tail == 4 && !memcmp(dot + 1, "cold", 4))
		return (size_t)(dot - name);
	if (!all_digits(dot + 1, tail))
		return len;
	/* dot + 1 is the number; the word before it must be a known clone kind. */
	for (i = 0; i < PGO_ARRAY_SIZE(numbered); i++) {
		size_t wl = strlen(numbered[i]);
		const char *w = dot - wl;

		if (w - 1 > name && w[-1] == '.' && !memcmp(w, numbered[i], wl))
			return (size_t)(w - 1 - name);
	}
	return len;
}

size_t gate_fold_clone_len(const char *name, size_t len)
{
	size_t n;

	while ((n = strip_one_suffix(name, len)) != len)
		len = n;
	return len;
}

int gate_check_cells(size_t rows, size_t cols, size_t max, const char *rows_name,
		     const char *what)
{
	if (!cols || rows <= max / cols)
		return 0;
	return pgo_error("%s is too large for the gate: %zu %s x %zu runs is more than %zu "
			 "counts (a damaged or hostile profile?); compare fewer runs or a "
			 "smaller benchmark", what, rows, rows_name, cols, max);
}

static int view_reserve(struct gate_view *v, size_t nr_runs)
{
	if (PGO_ALLOC_GROW(v->stacks, v->nr_stacks + 1, v->stacks_alloc) ||
	    PGO_ALLOC_GROW(v->counts, (v->nr_stacks + 1) * nr_runs, v->counts_alloc))
		return -1;
	return 0;
}

struct build_ctx {
	struct gate_profile *p;
	struct pgo_buf key;
	uint32_t *frames;
	size_t frames_alloc;
};

/* Append frame f (flen bytes) to b with its clone suffixes folded. */
static int add_folded_frame(struct pgo_buf *b, const char *f, size_t flen)
{
	/* Keep the kernel marker outside the clone search: "foo.isra.0_[k]" -> "foo_[k]". */
	size_t klen = (flen > 4 && !memcmp(f + flen - 4, "_[k]", 4)) ? 4 : 0;
	size_t base = gate_fold_clone_len(f, flen - klen);

	return pgo_buf_add(b, f, base) || pgo_buf_add(b, f + flen - klen, klen) ? -1 : 0;
}

/*
 * Add weight w (sample equivalents) of a folded stack to run r of view v. The stack's
 * frames are folded for clones; c->key holds the folded text. convert's reader has
 * already checked the stack (no empty frame, bounded depth).
 */
static int add_stack(struct build_ctx *c, struct gate_view *v, const char *stack, size_t r,
		     double w)
{
	struct gate_profile *p = c->p;
	size_t depth = 0, slen = strlen(stack), i = 0;
	long sid;

	pgo_buf_reset(&c->key);
	while (i <= slen) {
		const char *f = stack + i, *end = memchr(f, ';', slen - i);
		size_t flen = end ? (size_t)(end - f) : slen - i, start;
		long id;

		if (PGO_ALLOC_GROW(c->frames, depth + 1, c->frames_alloc))
			return -1;
		if (c->key.len && pgo_buf_addch(&c->key, ';'))
			return -1;
		start = c->key.len;
		if (add_folded_frame(&c->key, f, flen))
			return -1;
		id = pgo_strtab_intern_len(p->names, c->key.data + start, c->key.len - start);
		if (id < 0)
			return -1;
		c->frames[depth++] = (uint32_t)id;
		i += flen + 1;
	}
	sid = pgo_strtab_intern_len(&v->index, c->key.data, c->key.len);
	if (sid < 0)
		return -1;
	if ((size_t)sid == v->nr_stacks) {
		struct gate_stack *s;

		if (view_reserve(v, p->nr_runs))
			return -1;
		s = &v->stacks[v->nr_stacks];
		s->frames = pgo_calloc(depth, sizeof(*s->frames));
		if (!s->frames)
			return -1;
		memcpy(s->frames, c->frames, depth * sizeof(*s->frames));
		s->depth = depth;
		memset(v->counts + v->nr_stacks * p->nr_runs, 0, p->nr_runs * sizeof(double));
		v->nr_stacks++;
	}
	v->counts[(size_t)sid * p->nr_runs + r] += w;
	return 0;
}

/*
 * Turn the ns of run r into sample equivalents (see profile.h) and add them to the view
 * and to the wall view. Stacks go in stack id order, i.e. the order of the file.
 */
static int add_run_view(struct build_ctx *c, const struct convert_stackset *set, size_t r,
			enum convert_view cv, enum gate_view_kind kind)
{
	const struct convert_run *run = &set->runs[r];
	double rate = c->p->rate_hz > 0 ? c->p->rate_hz : 1000, scale = rate / 1e9;
	uint64_t total = convert_run_total(run, cv);
	size_t id;

	if (cv == CONVERT_VIEW_CPU && run->samples && total)
		scale = (double)run->samples / (double)total;
	for (id = 0; id < set->stacks.nr; id++) {
		const uint64_t *ns = pgo_u64map_find(&run->weights[cv], id);
		const char *stack = convert_stackset_stack(set, id);

		if (!ns)
			continue;
		if (add_stack(c, &c->p->views[kind], stack, r, (double)*ns * scale) ||
		    add_stack(c, &c->p->views[GATE_VIEW_WALL], stack, r, (double)*ns * scale))
			return -1;
	}
	return 0;
}

long gate_profile_find_function(const struct gate_profile *p, const char *frame)
{
	struct pgo_buf b = PGO_BUF_INIT;
	long id = -1;

	if (!add_folded_frame(&b, frame, strlen(frame)))
		id = pgo_strtab_find(p->names, pgo_buf_str(&b));
	pgo_buf_release(&b);
	return id;
}

enum gate_frame_kind gate_profile_frame_kind(const struct gate_profile *p, uint32_t f)
{
	return f < p->nr_kinds ? (enum gate_frame_kind)p->kinds[f] : GATE_FRAME_UNKNOWN;
}

/*
 * Record kind k for f. Unless forced, own code wins over what is known already: a name in
 * the binary and in a library may be the binary's.
 */
static int set_kind(struct gate_profile *p, uint32_t f, enum gate_frame_kind k, int force)
{
	if (PGO_ALLOC_GROW(p->kinds, (size_t)f + 1, p->kinds_alloc))
		return -1;
	if (p->nr_kinds < (size_t)f + 1)
		p->nr_kinds = (size_t)f + 1;
	if (force || p->kinds[f] != GATE_FRAME_OWN)
		p->kinds[f] = (unsigned char)k;
	return 0;
}

/* The kind a name gives away by itself, or GATE_FRAME_UNKNOWN. */
static enum gate_frame_kind kind_by_name(const char *name, const char *binary)
{
	static const char *const states[] = { "[running]", "[runnable]", "[sleep]", "[io]",
					      "[offcpu]" };
	size_t i, len = strlen(name), blen;

	if (len > 4 && !strcmp(name + len - 4, "_[k]"))
		return GATE_FRAME_KERNEL;
	for (i = 0; i < PGO_ARRAY_SIZE(states); i++)
		if (!strcmp(name, states[i]))
			return GATE_FRAME_STATE;
	if (len < 2 || name[0] != '[' || name[len - 1] != ']')
		return GATE_FRAME_UNKNOWN;
	/* an unresolved address, "[DSO]": the binary's own, or a library's */
	blen = strlen(binary);
	return len - 2 == blen && !memcmp(name + 1, binary, blen) ? GATE_FRAME_OWN : GATE_FRAME_LIB;
}

/*
 * Kinds of this profile's functions: from the "dsos" of the file, then from the names
 * themselves for the rest (docs/profile-json.md).
 */
static int frame_kinds(struct build_ctx *c, const struct convert_stackset *set)
{
	struct gate_profile *p = c->p;
	const char *bin = strrchr(p->binary_path, '/');
	size_t i, s;
	int k;

	bin = bin ? bin + 1 : p->binary_path;
	for (i = 0; i < set->frame_dsos.cap; i++) {
		const struct pgo_u64map_slot *sl = &set->frame_dsos.slots[i];
		const char *name;
		long id;

		if (!sl->used)
			continue;
		name = pgo_strtab_str(&set->frame_names, (size_t)(sl->key & 0xffffffffu));
		pgo_buf_reset(&c->key);
		if (add_folded_frame(&c->key, name, strlen(name)))
			return -1;
		id = pgo_strtab_find(p->names, pgo_buf_str(&c->key));
		if (id < 0)
			continue; /* in no stack */
		if (set_kind(p, (uint32_t)id, set->dso_own[sl->key >> 32] ? GATE_FRAME_OWN :
					      GATE_FRAME_LIB, 0))
			return -1;
	}
	for (k = 0; k < GATE_VIEW_NR; k++) {
		const struct gate_view *v = &p->views[k];

		for (s = 0; s < v->nr_stacks; s++) {
			for (i = 0; i < v->stacks[s].depth; i++) {
				uint32_t f = v->stacks[s].frames[i];
				enum gate_frame_kind nk;

				/* a name that says it is the kernel's or a thread state is one */
				nk = kind_by_name(pgo_strtab_str(p->names, f), bin);
				if (nk == GATE_FRAME_KERNEL || nk == GATE_FRAME_STATE) {
					if (set_kind(p, f, nk, 1))
						return -1;
				} else if (nk != GATE_FRAME_UNKNOWN &&
					   gate_profile_frame_kind(p, f) == GATE_FRAME_UNKNOWN) {
					if (set_kind(p, f, nk, 0))
						return -1;
				}
			}
		}
	}
	return 0;
}

static int dup_or(const char *s, const char *fallback, char **out)
{
	if (!s && !fallback)
		return 0;
	*out = pgo_strdup(s ? s : fallback);
	return *out ? 0 : -1;
}

/* Build the gate's model of a profile that convert's reader has validated. */
static int from_stackset(struct build_ctx *c, const struct convert_stackset *set,
			 const char *label)
{
	struct gate_profile *p = c->p;
	int offcpu = !!(set->views & (1u << CONVERT_VIEW_OFFCPU));
	size_t r;

	if (!set->nr_runs)
		return pgo_error("invalid profile '%s': runs: no runs (regenerate it with "
				 "'pgo convert --to json')", label);
	if (dup_or(label, NULL, &p->label) || dup_or(set->tool, NULL, &p->tool) ||
	    dup_or(set->command, NULL, &p->command) ||
	    dup_or(set->binary_path, "[unknown]", &p->binary_path) ||
	    dup_or(set->build_id, NULL, &p->build_id) || dup_or(set->event, "unknown", &p->event))
		return -1;
	/* Folding clones only merges stacks, so this bounds every view's matrix. */
	pgo_buf_addf(&c->key, "'%s'", label);
	if (gate_check_cells(set->stacks.nr, set->nr_runs, GATE_MAX_CELLS, "distinct stacks", pgo_buf_str(&c->key)))
		return -1;
	p->rate_hz = (double)set->rate_hz;
	p->nr_runs = set->nr_runs;
	p->runs = pgo_calloc(p->nr_runs, sizeof(*p->runs));
	if (!p->runs)
		return -1;
	p->views[GATE_VIEW_CPU].present = 1;
	p->views[GATE_VIEW_OFFCPU].present = offcpu;
	p->views[GATE_VIEW_WALL].present = offcpu;
	for (r = 0; r < set->nr_runs; r++) {
		const struct convert_run *cr = &set->runs[r];
		struct gate_run *gr = &p->runs[r];

		gr->run = (int64_t)cr->run;
		gr->pid = cr->pid;
		gr->duration_ns = cr->duration_ns;
		gr->cpu_ns = cr->cpu_ns ? cr->cpu_ns : convert_run_total(cr, CONVERT_VIEW_CPU);
		gr->offcpu_ns = cr->offcpu_ns ? cr->offcpu_ns : convert_run_total(cr, CONVERT_VIEW_OFFCPU);
		gr->samples = cr->samples;
		gr->lost = cr->lost;
		if (gr->lost)
			pgo_warn("'%s': run %zu lost %llu samples; its counts are low by that much",
				 label, r, (unsigned long long)gr->lost);
		if (add_run_view(c, set, r, CONVERT_VIEW_CPU, GATE_VIEW_CPU) ||
		    (offcpu && add_run_view(c, set, r, CONVERT_VIEW_OFFCPU, GATE_VIEW_OFFCPU)))
			return -1;
	}
	return frame_kinds(c, set);
}

int gate_profile_take(struct convert_stackset *set, const char *label,
		      struct pgo_strtab *names, struct gate_profile **out)
{
	struct build_ctx c = { .key = PGO_BUF_INIT };
	int err = -1;

	*out = NULL;
	c.p = pgo_calloc(1, sizeof(*c.p));
	if (c.p) {
		c.p->set = *set;
		convert_stackset_init(set);
		c.p->names = names;
		err = from_stackset(&c, &c.p->set, label);
	} else {
		convert_stackset_release(set);
	}
	free(c.frames);
	pgo_buf_release(&c.key);
	if (err)
		gate_profile_free(c.p);
	else
		*out = c.p;
	return err;
}

int gate_profile_parse(const char *data, size_t len, const char *label,
		       struct pgo_strtab *names, struct gate_profile **out)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;

	*out = NULL;
	if (convert_profile_json_parse(data, len, label, &set))
		return -1;
	return gate_profile_take(&set, label, names, out);
}

void gate_profile_free(struct gate_profile *p)
{
	size_t i;
	int k;

	if (!p)
		return;
	for (k = 0; k < GATE_VIEW_NR; k++) {
		struct gate_view *v = &p->views[k];

		for (i = 0; i < v->nr_stacks; i++)
			free(v->stacks[i].frames);
		free(v->stacks);
		free(v->counts);
		pgo_strtab_release(&v->index);
	}
	free(p->label);
	free(p->tool);
	free(p->command);
	free(p->binary_path);
	free(p->build_id);
	free(p->event);
	free(p->runs);
	free(p->kinds);
	convert_stackset_release(&p->set);
	free(p);
}

static int merge_view(struct gate_profile *p, const struct gate_profile *src, size_t col0,
		      enum gate_view_kind k)
{
	const struct gate_view *sv = &src->views[k];
	struct gate_view *v = &p->views[k];
	struct pgo_buf key = PGO_BUF_INIT;
	size_t s, i, r;
	int err = -1;

	for (s = 0; s < sv->nr_stacks; s++) {
		const struct gate_stack *st = &sv->stacks[s];
		long sid;

		pgo_buf_reset(&key);
		for (i = 0; i < st->depth; i++)
			if ((i && pgo_buf_addch(&key, ';')) ||
			    pgo_buf_adds(&key, pgo_strtab_str(p->names, st->frames[i])))
				goto out;
		sid = pgo_strtab_intern_len(&v->index, key.data, key.len);
		if (sid < 0)
			goto out;
		if ((size_t)sid == v->nr_stacks) {
			if (view_reserve(v, p->nr_runs))
				goto out;
			v->stacks[sid].frames = pgo_calloc(st->depth, sizeof(*st->frames));
			if (!v->stacks[sid].frames)
				goto out;
			memcpy(v->stacks[sid].frames, st->frames, st->depth * sizeof(*st->frames));
			v->stacks[sid].depth = st->depth;
			v->nr_stacks++;
		}
		for (r = 0; r < src->nr_runs; r++)
			v->counts[(size_t)sid * p->nr_runs + col0 + r] +=
				sv->counts[s * src->nr_runs + r];
	}
	err = 0;
out:
	pgo_buf_release(&key);
	return err;
}

int gate_profile_merge(const struct gate_profile *a, const struct gate_profile *b,
		       struct gate_profile **out)
{
	struct gate_profile *p;
	int k;

	*out = NULL;
	if (a->names != b->names)
		PGO_BUG("profiles merged with different name tables");
	p = pgo_calloc(1, sizeof(*p));
	if (!p)
		return -1;
	convert_stackset_init(&p->set);
	p->names = a->names;
	p->rate_hz = a->rate_hz;
	p->nr_runs = a->nr_runs + b->nr_runs;
	if (!(p->label = pgo_strdup(a->label)) || !(p->event = pgo_strdup(a->event)) ||
	    !(p->binary_path = pgo_strdup(a->binary_path)) ||
	    (a->command && !(p->command = pgo_strdup(a->command))) ||
	    (a->tool && !(p->tool = pgo_strdup(a->tool))) ||
	    (a->build_id && !(p->build_id = pgo_strdup(a->build_id))) ||
	    !(p->runs = pgo_calloc(p->nr_runs, sizeof(*p->runs))))
		goto fail;
	for (k = 0; k < GATE_VIEW_NR; k++)
		if (gate_check_cells(a->views[k].nr_stacks + b->views[k].nr_stacks, p->nr_runs, GATE_MAX_CELLS,
				     "distinct stacks", "the head profile with its confirmation runs"))
			goto fail;
	if (convert_stackset_append(&p->set, &a->set) || convert_stackset_append(&p->set, &b->set))
		goto fail;
	memcpy(p->runs, a->runs, a->nr_runs * sizeof(*p->runs));
	memcpy(p->runs + a->nr_runs, b->runs, b->nr_runs * sizeof(*p->runs));
	for (k = 0; k < 2; k++) {
		const struct gate_profile *src = k ? b : a;
		size_t f;

		for (f = 0; f < src->nr_kinds; f++)
			if (src->kinds[f] && set_kind(p, (uint32_t)f, src->kinds[f], 0))
				goto fail;
	}
	for (k = 0; k < GATE_VIEW_NR; k++) {
		p->views[k].present = a->views[k].present && b->views[k].present;
		if (merge_view(p, a, 0, k) || merge_view(p, b, a->nr_runs, k))
			goto fail;
	}
	*out = p;
	return 0;
fail:
	gate_profile_free(p);
	return -1;
}
