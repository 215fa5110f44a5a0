// SPDX-License-Identifier: MIT
/* The gate's own-code stacks, count matrices and call relations (gate/views.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate/views.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

void gate_view_release(struct gate_view *v)
{
	size_t i;

	for (i = 0; i < v->nr_stacks; i++)
		free(v->stacks[i].frames);
	free(v->stacks);
	free(v->counts);
	pgo_strtab_release(&v->index);
	memset(v, 0, sizeof(*v));
}

/*
 * The stacks of `in` (kr runs) with only own-code frames (own[f]), identical results
 * merged. A stack without any own frame (the frame-pointer walk lost the caller of
 * pthread_join in main, a thread that never ran own code) is charged to its outermost
 * frame, which names the library call. With leaf_ok, only the stacks whose (unfolded)
 * leaf has leaf_ok[leaf] set are kept. *out must be zeroed.
 */
int gate_view_own_code(const struct gate_view *in, size_t kr, const unsigned char *own,
			 const unsigned char *leaf_ok, struct gate_view *out)
{
	struct pgo_buf key = PGO_BUF_INIT;
	uint32_t *fr = NULL;
	size_t s, i, r, n, fr_alloc = 0;
	int err = -1;

	out->present = in->present;
	for (s = 0; s < in->nr_stacks; s++) {
		const struct gate_stack *st = &in->stacks[s];
		long sid;

		if (leaf_ok && !leaf_ok[st->frames[st->depth - 1]])
			continue;
		if (PGO_ALLOC_GROW(fr, st->depth, fr_alloc))
			goto out;
		for (i = 0, n = 0; i < st->depth; i++)
			if (own[st->frames[i]])
				fr[n++] = st->frames[i];
		if (!n)
			fr[n++] = st->frames[0];
		pgo_buf_reset(&key);
		for (i = 0; i < n; i++)
			if (pgo_buf_addf(&key, "%s%u", i ? "," : "", (unsigned)fr[i]))
				goto out;
		sid = pgo_strtab_intern_len(&out->index, key.data, key.len);
		if (sid < 0)
			goto out;
		if ((size_t)sid == out->nr_stacks) {
			struct gate_stack *ns;

			if (PGO_ALLOC_GROW(out->stacks, out->nr_stacks + 1, out->stacks_alloc) ||
			    PGO_ALLOC_GROW(out->counts, (out->nr_stacks + 1) * kr, out->counts_alloc))
				goto out;
			ns = &out->stacks[out->nr_stacks];
			ns->frames = pgo_calloc(n, sizeof(*ns->frames));
			if (!ns->frames)
				goto out;
			memcpy(ns->frames, fr, n * sizeof(*fr));
			ns->depth = n;
			out->nr_stacks++;
		}
		for (r = 0; r < kr; r++)
			out->counts[(size_t)sid * kr + r] += in->counts[s * kr + r];
	}
	err = 0;
out:
	free(fr);
	pgo_buf_release(&key);
	return err;
}

/*
 * Self and inclusive count matrices over the union of functions (nf = names->nr), base
 * runs in columns [0, kb), head runs in [kb, kb + kh). Inclusive counts a function once
 * per stack even when it recurses; incl may be NULL.
 */
int gate_sides_matrices(const struct gate_sides *sd, size_t nf, double *self, double *incl)
{
	size_t nr = sd->k[0] + sd->k[1], col0 = 0;
	uint64_t *stamp, gen = 0;
	int k;

	stamp = pgo_calloc(nf ? nf : 1, sizeof(*stamp));
	if (!stamp)
		return -1;
	for (k = 0; k < 2; k++) {
		const struct gate_view *v = sd->v[k];
		size_t s, r, i, kr = sd->k[k];

		for (s = 0; s < v->nr_stacks; s++) {
			const struct gate_stack *st = &v->stacks[s];
			const double *w = v->counts + s * kr;
			uint32_t leaf = st->frames[st->depth - 1];

			for (r = 0; r < kr; r++)
				self[(size_t)leaf * nr + col0 + r] += w[r];
			if (!incl)
				continue;
			gen++;
			for (i = 0; i < st->depth; i++) {
				uint32_t f = st->frames[i];

				if (stamp[f] == gen)
					continue;
				stamp[f] = gen;
				for (r = 0; r < kr; r++)
					incl[(size_t)f * nr + col0 + r] += w[r];
			}
		}
		col0 += kr;
	}
	free(stamp);
	return 0;
}

/*
 * ancestor[f] bitmaps would be nf^2; the flagged set is small, so answer "is g below f
 * in some stack" by scanning stacks once per question.
 */
int gate_sides_is_descendant(const struct gate_sides *sd, uint32_t anc, uint32_t desc)
{
	int k;

	for (k = 0; k < 2; k++) {
		const struct gate_view *v = sd->v[k];
		size_t s, i;

		for (s = 0; s < v->nr_stacks; s++) {
			const struct gate_stack *st = &v->stacks[s];
			int seen = 0;

			for (i = 0; i < st->depth; i++) {
				if (st->frames[i] == anc)
					seen = 1;
				else if (seen && st->frames[i] == desc)
					return 1;
			}
		}
	}
	return 0;
}

/* The heaviest caller of f in head (or base if f is gone from head); UINT32_MAX if none. */
uint32_t gate_sides_main_parent(const struct gate_sides *sd, uint32_t f, size_t nf)
{
	double *w = pgo_calloc(nf ? nf : 1, sizeof(*w)), best = 0;
	uint32_t arg = UINT32_MAX;
	int k;

	if (!w)
		return UINT32_MAX;
	for (k = 1; k >= 0 && arg == UINT32_MAX; k--) {
		const struct gate_view *v = sd->v[k];
		size_t s, i, r, kr = sd->k[k];

		for (s = 0; s < v->nr_stacks; s++) {
			const struct gate_stack *st = &v->stacks[s];

			for (i = 1; i < st->depth; i++) {
				if (st->frames[i] != f || st->frames[i - 1] == f)
					continue;
				for (r = 0; r < kr; r++)
					w[st->frames[i - 1]] += v->counts[s * kr + r];
			}
		}
		for (i = 0; i < nf; i++) {
			if (w[i] > best) {
				best = w[i];
				arg = (uint32_t)i;
			}
		}
	}
	free(w);
	return arg;
}
