// SPDX-License-Identifier: MIT
/*
 * A unit's rows, as the line program made them, into libdw's order (by address, runs of
 * sequences merged where they do not overlap, else one sort), and the lookups over them
 * (symbolize/linetab.h).
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize/linetab.h"
#include "symbolize/linetab_internal.h"
#include "lib/alloc.h"

/* libdw's order: by address, a sequence's end before a row at the same address, then as read */
static int before(const struct symbolize_line *x, size_t xi, const struct symbolize_line *y, size_t yi)
{
	if (x->off != y->off)
		return x->off < y->off;
	if (x->end_seq != y->end_seq)
		return x->end_seq;
	return xi < yi;
}

struct ordered {
	struct symbolize_line row;
	size_t order;
};

static int cmp_ordered(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;

	return before(&x->row, x->order, &y->row, y->order) ? -1 : 1;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct symbolize_lineseq *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The one sequence of a table whose rows are in order as they are. */
static int one_seq(struct symbolize_linetab *t)
{
	free(t->seqs);
	t->seqs = malloc(sizeof(*t->seqs));
	if (!t->seqs)
		return -1;
	t->nr_seqs = t->alloc_seqs = 1;
	t->seqs[0].lo = t->nr_rows ? symbolize_line_addr(t, &t->rows[0]) : 0;
	t->seqs[0].start = 0;
	t->seqs[0].n = t->nr_rows;
	return 0;
}

/* The fallback: every row sorted (libdw's qsort, in effect), one sequence. */
static int sort_all(struct symbolize_linetab *t)
{
	struct ordered *v = malloc(t->nr_rows * sizeof(*v));
	size_t i;

	if (!v)
		return -1;
	for (i = 0; i < t->nr_rows; i++) {
		v[i].row = t->rows[i];
		v[i].order = i;
	}
	qsort(v, t->nr_rows, sizeof(*v), cmp_ordered);
	for (i = 0; i < t->nr_rows; i++)
		t->rows[i] = v[i].row;
	free(v);
	free(t->seqs);
	t->seqs = NULL;
	return one_seq(t);
}

/*
 * Put the sequences' rows in the sequences' order (by address), in place: the rows of
 * every sequence but the largest go through a copy, the largest moves once (sqlite3's
 * .text sequence: 24000 rows of a partial table, 200000 of a whole one, and a few hundred
 * in .text.unlikely before it). Returns 0, or -1.
 */
static int move_rows(struct symbolize_linetab *t)
{
	struct symbolize_line *v;
	size_t k, at = 0, big = 0, nv = 0;

	for (k = 0; k < t->nr_seqs && t->seqs[k].start == at; k++)
		at += t->seqs[k].n;
	if (k == t->nr_seqs)
		return 0;                          /* in order as read */
	for (k = 1; k < t->nr_seqs; k++)
		if (t->seqs[k].n > t->seqs[big].n)
			big = k;
	if (!(v = malloc((t->nr_rows - t->seqs[big].n + 1) * sizeof(*v))))
		return -1;
	for (k = 0; k < t->nr_seqs; k++) {
		if (k == big)
			continue;
		memcpy(v + nv, t->rows + t->seqs[k].start, t->seqs[k].n * sizeof(*v));
		nv += t->seqs[k].n;
	}
	for (k = 0, at = 0; k < big; k++)
		at += t->seqs[k].n;
	memmove(t->rows + at, t->rows + t->seqs[big].start, t->seqs[big].n * sizeof(*v));
	t->seqs[big].start = at;
	for (k = 0, at = 0, nv = 0; k < t->nr_seqs; k++) {
		if (k != big) {
			memcpy(t->rows + at, v + nv, t->seqs[k].n * sizeof(*v));
			nv += t->seqs[k].n;
			t->seqs[k].start = at;
		}
		at += t->seqs[k].n;
	}
	free(v);
	return 0;
}

/*
 * Put the rows in libdw's order. Compilers write a unit's sequences (one per section:
 * .text, .text.unlikely, .text.startup; one per function with -ffunction-sections) each
 * in address order, but not in address order of each other: the sequences are sorted by
 * address and their rows copied into that order (for sqlite3's one unit only when it is
 * read whole: a partial table has a few thousand rows). Only a sequence's end moves
 * inside it, before a last row at its address; rows out of order inside a sequence, or
 * sequences that overlap, get the full sort. The sequences are the ones store() saw end
 * (and an unended last one), not found again by a walk over the rows (which takes 400k
 * instructions for the 24000 rows sqlite3's unit keeps for a short recording).
 */
int symbolize_linetab_sort_rows(struct symbolize_linetab *t)
{
	size_t k;

	if (!t->out_of_order)
		return one_seq(t);
	if (t->backwards)
		return sort_all(t);
	if (t->seq_start < t->nr_rows) {
		/* an unended last sequence: what the row walk took the last row as the end of */
		if (PGO_ALLOC_GROW(t->seqs, t->nr_seqs + 1, t->alloc_seqs) < 0)
			return -1;
		t->seqs[t->nr_seqs].start = t->seq_start;
		t->seqs[t->nr_seqs++].n = t->nr_rows - t->seq_start;
	}
	for (k = 0; k < t->nr_seqs; k++) {
		size_t start = t->seqs[k].start, i = start + t->seqs[k].n - 1, j;

		/* the end goes before rows of its sequence at its address */
		for (j = i; j > start && t->rows[j].end_seq && !t->rows[j - 1].end_seq &&
			    t->rows[j - 1].off == t->rows[j].off; j--) {
			struct symbolize_line r = t->rows[j];

			t->rows[j] = t->rows[j - 1];
			t->rows[j - 1] = r;
		}
		t->seqs[k].lo = symbolize_line_addr(t, &t->rows[start]);
	}
	qsort(t->seqs, t->nr_seqs, sizeof(*t->seqs), cmp_seq);
	for (k = 0; k < t->nr_seqs; k++) {
		const struct symbolize_lineseq *q = &t->seqs[k];

		/* an end moved inside its sequence keeps its place relative to other sequences */
		if (k && !before(&t->rows[q[-1].start + q[-1].n - 1], q[-1].start + q[-1].n - 1,
				 &t->rows[q->start], q->start))
			return sort_all(t);
	}
	return move_rows(t);
}

/* The last sequence whose first address is <= addr, or NULL. */
static const struct symbolize_lineseq *seq_at(const struct symbolize_linetab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr_seqs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->seqs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->seqs[lo - 1] : NULL;
}

size_t symbolize_linetab_lower(const struct symbolize_linetab *t, uint64_t addr)
{
	const struct symbolize_lineseq *q = seq_at(t, addr);
	size_t lo, hi;

	if (!q)
		return 0;
	lo = q->start;
	hi = q->start + q->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (symbolize_line_addr(t, &t->rows[mid]) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* past the sequence's rows: the next sequence starts above addr; the one before may
	 * end at addr */
	while (lo > 0 && symbolize_line_addr(t, symbolize_linetab_row(t, lo - 1)) >= addr)
		lo--;
	return lo;
}

size_t symbolize_linetab_find(const struct symbolize_linetab *t, uint64_t pc)
{
	const struct symbolize_lineseq *q = seq_at(t, pc);
	size_t l, u;
	const struct symbolize_line *r;

	/* dwarf_getsrc_die: the last row with addr <= pc, unless it ends a sequence */
	if (!q)
		return SIZE_MAX;
	l = q->start;
	u = q->start + q->n - 1;
	while (l < u) {
		size_t mid = u - (u - l) / 2;

		if (pc < symbolize_line_addr(t, &t->rows[mid]))
			u = mid - 1;
		else
			l = mid;
	}
	r = &t->rows[l];
	return !r->end_seq && symbolize_line_addr(t, r) <= pc ? l : SIZE_MAX;
}

const char *symbolize_linetab_file(const struct symbolize_linetab *t, uint32_t idx)
{
	return idx < t->nr_files ? t->names + t->name_off[idx] : NULL;
}

void symbolize_linetab_release(struct symbolize_linetab *t)
{
	free(t->rows);
	free(t->seqs);
	free(t->name_off);
	free(t->names);
	memset(t, 0, sizeof(*t));
}
