// SPDX-License-Identifier: MIT
/* The symbolized profile model: interned folded stacks with per-run, per-view weights. */
#include <stdlib.h>
#include <string.h>

#include "convert/stackset.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

static const char *const view_names[CONVERT_VIEW_NR] = { "cpu", "offcpu" };

const char *convert_view_name(enum convert_view v)
{
	if ((unsigned)v >= CONVERT_VIEW_NR)
		PGO_BUG("bad view %d", (int)v);
	return view_names[v];
}

int convert_view_parse(const char *s, enum convert_view *v)
{
	size_t i;

	for (i = 0; i < CONVERT_VIEW_NR; i++) {
		if (!strcmp(s, view_names[i])) {
			*v = (enum convert_view)i;
			return 0;
		}
	}
	return -1;
}

void convert_stackset_init(struct convert_stackset *set)
{
	struct convert_stackset blank = CONVERT_STACKSET_INIT;

	*set = blank;
}

void convert_stackset_release(struct convert_stackset *set)
{
	size_t i, v;

	free(set->tool);
	free(set->command);
	free(set->binary_path);
	free(set->build_id);
	free(set->event);
	for (i = 0; i < set->nr_runs; i++)
		for (v = 0; v < CONVERT_VIEW_NR; v++)
			pgo_u64map_release(&set->runs[i].weights[v]);
	free(set->runs);
	pgo_strtab_release(&set->stacks);
	pgo_strtab_release(&set->dsos);
	free(set->dso_own);
	pgo_strtab_release(&set->frame_names);
	pgo_u64map_release(&set->frame_dsos);
	convert_stackset_init(set);
}

long convert_stackset_add_run(struct convert_stackset *set, uint64_t run, int64_t pid)
{
	struct convert_run *r;

	if (PGO_ALLOC_GROW(set->runs, set->nr_runs + 1, set->alloc_runs))
		return -1;
	r = &set->runs[set->nr_runs];
	memset(r, 0, sizeof(*r));
	r->run = run;
	r->pid = pid;
	return (long)set->nr_runs++;
}

static int add_interned(struct convert_stackset *set, size_t run_index, enum convert_view view,
			long id, uint64_t weight)
{
	uint64_t *w;

	if (run_index >= set->nr_runs || (unsigned)view >= CONVERT_VIEW_NR)
		PGO_BUG("bad run %zu or view %d", run_index, (int)view);
	if (id < 0)
		return -1;
	if (pgo_u64map_get(&set->runs[run_index].weights[view], (uint64_t)id, &w) < 0)
		return -1;
	if (*w > UINT64_MAX - weight)
		return pgo_error("weight of stack '%s' overflows 64 bits",
				 pgo_strtab_str(&set->stacks, (size_t)id));
	*w += weight;
	set->views |= 1u << view;
	return 0;
}

/* Length of the valid UTF-8 sequence at p, or 0 (then the byte is replaced). */
static size_t utf8_len(const unsigned char *p)
{
	unsigned need, cp, min, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 1, cp = p[0] & 0x1f, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 2, cp = p[0] & 0x0f, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 3, cp = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (i = 1; i <= need; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need + 1;
}

/* Append frame name f to b, sanitized: ';' -> ':', "" -> "[unknown]", bad UTF-8 -> '?'. */
static int add_frame_name(struct pgo_buf *b, const char *f)
{
	size_t start = b->len;

	if (pgo_buf_adds(b, f && *f ? f : "[unknown]"))
		return -1;
	/*
	 * ';' separates frames; names from binaries may be any bytes, and the
	 * profile JSON (jansson) needs UTF-8, so bad bytes become '?'
	 */
	while (start < b->len) {
		size_t n = utf8_len((const unsigned char *)b->data + start);

		if (!n || b->data[start] == ';')
			b->data[start] = n ? ':' : '?';
		start += n ? n : 1;
	}
	return 0;
}

int convert_stackset_add(struct convert_stackset *set, size_t run_index, enum convert_view view,
			 const char *const *frames, size_t nr, uint64_t weight)
{
	struct pgo_buf b = PGO_BUF_INIT;
	size_t i;
	int err;

	if (!nr)
		return pgo_error("empty stack");
	for (i = 0; i < nr; i++) {
		if ((i && pgo_buf_addch(&b, ';')) || add_frame_name(&b, frames[i])) {
			pgo_buf_release(&b);
			return -1;
		}
	}
	err = add_interned(set, run_index, view, pgo_strtab_intern_len(&set->stacks, b.data, b.len),
			   weight);
	pgo_buf_release(&b);
	return err;
}

int convert_stackset_add_frame_dso(struct convert_stackset *set, const char *name,
				   const char *dso, int own)
{
	struct pgo_buf b = PGO_BUF_INIT;
	long d, f = -1;

	d = pgo_strtab_intern(&set->dsos, dso);
	if (d >= 0 && PGO_ALLOC_GROW(set->dso_own, (size_t)d + 1, set->dso_own_alloc) == 0) {
		set->dso_own[d] = (unsigned char)(set->dso_own[d] | !!own);
		if (!add_frame_name(&b, name))
			f = pgo_strtab_intern_len(&set->frame_names, b.data, b.len);
	}
	pgo_buf_release(&b);
	if (f < 0)
		return -1;
	return pgo_u64map_put(&set->frame_dsos, (uint64_t)d << 32 | (uint64_t)f, 1) < 0 ? -1 : 0;
}

int convert_stackset_add_folded(struct convert_stackset *set, size_t run_index,
				enum convert_view view, const char *stack, uint64_t weight)
{
	size_t len = strlen(stack);

	if (!len || stack[0] == ';' || stack[len - 1] == ';' || strstr(stack, ";;"))
		return pgo_error("invalid folded stack '%s': empty frame", stack);
	return add_interned(set, run_index, view, pgo_strtab_intern_len(&set->stacks, stack, len),
			    weight);
}

const char *convert_stackset_stack(const struct convert_stackset *set, size_t id)
{
	return pgo_strtab_str(&set->stacks, id);
}

uint64_t convert_run_total(const struct convert_run *run, enum convert_view view)
{
	const struct pgo_u64map *m = &run->weights[view];
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (!m->slots[i].used)
			continue;
		if (sum > UINT64_MAX - m->slots[i].value)
			return UINT64_MAX;
		sum += m->slots[i].value;
	}
	return sum;
}

static int cmp_stack_name(const void *a, const void *b, void *set)
{
	const struct convert_stack_weight *x = a, *y = b;

	return strcmp(convert_stackset_stack(set, x->stack), convert_stackset_stack(set, y->stack));
}

/*
 * One run: its own map's entries, no pass over all stacks or runs. Per run, that pass would
 * make writing a profile cost stacks x runs, which a sparse hostile file makes huge.
 */
static int collect_run(const struct convert_stackset *set, const struct pgo_u64map *m,
		       struct convert_stack_weight **out, size_t *nr)
{
	struct convert_stack_weight *res;
	size_t i, n = 0;

	if (!m->count)
		return 0;
	res = pgo_calloc(m->count, sizeof(*res));
	if (!res)
		return -1;
	for (i = 0; i < m->cap; i++) {
		const struct pgo_u64map_slot *s = &m->slots[i];

		if (!s->used || !s->value)
			continue;
		res[n].stack = (uint32_t)s->key;
		res[n].weight = s->value;
		n++;
	}
	if (!n) {
		free(res);
		return 0;
	}
	if (n > 1)
		qsort_r(res, n, sizeof(*res), cmp_stack_name, (void *)set);
	*out = res;
	*nr = n;
	return 0;
}

int convert_stackset_collect(const struct convert_stackset *set, enum convert_view view,
			     long run_index, struct convert_stack_weight **out, size_t *nr)
{
	uint64_t *sums = NULL;
	struct convert_stack_weight *res = NULL;
	size_t i, r, n = 0, nstacks = set->stacks.nr;

	*out = NULL;
	*nr = 0;
	if ((unsigned)view >= CONVERT_VIEW_NR ||
	    (run_index >= 0 && (size_t)run_index >= set->nr_runs))
		PGO_BUG("bad view %d or run %ld", (int)view, run_index);
	if (!nstacks)
		return 0;
	if (run_index >= 0)
		return collect_run(set, &set->runs[run_index].weights[view], out, nr);
	sums = pgo_calloc(nstacks, sizeof(*sums));
	if (!sums)
		return -1;
	for (r = 0; r < set->nr_runs; r++) {
		const struct pgo_u64map *m = &set->runs[r].weights[view];

		if (run_index >= 0 && (size_t)run_index != r)
			continue;
		for (i = 0; i < m->cap; i++) {
			const struct pgo_u64map_slot *s = &m->slots[i];

			if (!s->used)
				continue;
			if (sums[s->key] > UINT64_MAX - s->value) {
				free(sums);
				return pgo_error("total weight of stack '%s' overflows 64 bits",
						 convert_stackset_stack(set, s->key));
			}
			sums[s->key] += s->value;
		}
	}
	for (i = 0; i < nstacks; i++)
		n += sums[i] != 0;
	if (n) {
		res = pgo_calloc(n, sizeof(*res));
		if (!res) {
			free(sums);
			return -1;
		}
	}
	for (i = 0, n = 0; i < nstacks; i++) {
		if (!sums[i])
			continue;
		res[n].stack = (uint32_t)i;
		res[n].weight = sums[i];
		n++;
	}
	free(sums);
	if (n > 1)
		qsort_r(res, n, sizeof(*res), cmp_stack_name, (void *)set);
	*out = res;
	*nr = n;
	return 0;
}

static int take_str(char **dst, const char *src)
{
	if (*dst || !src)
		return 0;
	*dst = pgo_strdup(src);
	return *dst ? 0 : -1;
}

int convert_stackset_append(struct convert_stackset *dst, const struct convert_stackset *src)
{
	size_t r, v, i;

	if (take_str(&dst->tool, src->tool) || take_str(&dst->command, src->command) ||
	    take_str(&dst->binary_path, src->binary_path) || take_str(&dst->build_id, src->build_id) ||
	    take_str(&dst->event, src->event))
		return -1;
	if (!dst->rate_hz)
		dst->rate_hz = src->rate_hz;
	dst->views |= src->views;
	for (i = 0; i < src->frame_dsos.cap; i++) {
		const struct pgo_u64map_slot *sl = &src->frame_dsos.slots[i];
		size_t d = (size_t)(sl->key >> 32);

		if (sl->used &&
		    convert_stackset_add_frame_dso(dst, pgo_strtab_str(&src->frame_names,
								       (size_t)(sl->key & 0xffffffffu)),
						   pgo_strtab_str(&src->dsos, d), src->dso_own[d]))
			return -1;
	}
	for (r = 0; r < src->nr_runs; r++) {
		const struct convert_run *sr = &src->runs[r];
		long d = convert_stackset_add_run(dst, dst->nr_runs, sr->pid);

		if (d < 0)
			return -1;
		dst->runs[d].duration_ns = sr->duration_ns;
		dst->runs[d].cpu_ns = sr->cpu_ns;
		dst->runs[d].offcpu_ns = sr->offcpu_ns;
		dst->runs[d].samples = sr->samples;
		dst->runs[d].lost = sr->lost;
		for (v = 0; v < CONVERT_VIEW_NR; v++) {
			const struct pgo_u64map *m = &sr->weights[v];

			for (i = 0; i < m->cap; i++) {
				if (!m->slots[i].used)
					continue;
				if (add_interned(dst, (size_t)d, (enum convert_view)v,
						 pgo_strtab_intern(&dst->stacks,
								   convert_stackset_stack(src, m->slots[i].key)),
						 m->slots[i].value))
					return -1;
			}
		}
	}
	return 0;
}
