// SPDX-License-Identifier: MIT
/*
 * recsort: sort, search and group records through generic, qsort-style routines that take a
 * comparator by pointer -- the example program of `make demo` and of bench/pgo.sh.
 *
 * Generic code like this is what profile-guided optimisation pays for most: gcc -O2 cannot see
 * which comparator an indirect call reaches, so it cannot inline it; a profile can (indirect-call
 * promotion), and it also tells which branches of the merge are hot, which loops are worth
 * unrolling and which error paths never run.
 *
 *   recsort MODE N SEED [KEY]   MODE "train" or "eval" (different score distributions), N records,
 *                               SEED of the generator, KEY score (default), name or weight;
 *                               prints a checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	uint32_t id;
	int32_t score;
	char name[12];
	double weight;
};

typedef int (*cmp_fn)(const void *, const void *);

/* External, as they would be in a library: gcc cannot specialise them for one comparator. */
void merge_sort(void *base, size_t n, size_t size, cmp_fn cmp, void *tmp);
size_t lower_bound(const void *base, size_t n, size_t size, const void *key, cmp_fn cmp);
int by_score(const void *x, const void *y);
int by_name(const void *x, const void *y);
int by_weight(const void *x, const void *y);

static uint64_t rng_state;

static uint32_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33);
}

/* Generic stable merge sort over elements of SIZE bytes (the library routine). */
void merge_sort(void *base, size_t n, size_t size, cmp_fn cmp, void *tmp)
{
	char *a = base, *t = tmp;

	if (n < 2)
		return;
	if (n <= 8) {
		/* Insertion sort for short runs. */
		for (size_t i = 1; i < n; i++) {
			size_t j = i;
			memcpy(t, a + i * size, size);
			while (j > 0 && cmp(a + (j - 1) * size, t) > 0) {
				memcpy(a + j * size, a + (j - 1) * size, size);
				j--;
			}
			memcpy(a + j * size, t, size);
		}
		return;
	}
	size_t h = n / 2;
	merge_sort(a, h, size, cmp, t);
	merge_sort(a + h * size, n - h, size, cmp, t);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		if (cmp(a + j * size, a + i * size) < 0)
			memcpy(t + k++ * size, a + j++ * size, size);
		else
			memcpy(t + k++ * size, a + i++ * size, size);
	}
	while (i < h)
		memcpy(t + k++ * size, a + i++ * size, size);
	while (j < n)
		memcpy(t + k++ * size, a + j++ * size, size);
	memcpy(a, t, n * size);
}

/* Generic lower bound: the first element not less than KEY. */
size_t lower_bound(const void *base, size_t n, size_t size, const void *key, cmp_fn cmp)
{
	const char *a = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp(a + mid * size, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int by_score(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int by_name(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	int c = memcmp(a->name, b->name, sizeof(a->name));
	if (c)
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

int by_weight(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;
	if (a->weight < b->weight)
		return -1;
	if (a->weight > b->weight)
		return 1;
	if (a->weight != a->weight || b->weight != b->weight) {
		/* NaN weights never occur in generated data. */
		fprintf(stderr, "recsort: NaN weight in records %u and %u\n", a->id, b->id);
		exit(2);
	}
	return 0;
}

static void fill(struct rec *r, size_t n, int mode)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t x = rng();
		r[i].id = (uint32_t)i;
		/* train: wide uniform scores; eval: few distinct scores (many ties). */
		r[i].score = mode ? (int32_t)(x % 1000003) : (int32_t)(x % 97);
		for (size_t k = 0; k < sizeof(r[i].name); k++)
			r[i].name[k] = (char)('a' + (k < 3 ? (x >> (k * 5)) % 4 : rng() % 26));
		r[i].weight = (double)(rng() % 100000) / 7.0;
	}
}

/* Group sorted records by score and sum their weights (a branchy scan). */
static double group(const struct rec *r, size_t n)
{
	double total = 0, run = 0;
	size_t groups = 0;

	for (size_t i = 0; i < n; i++) {
		if (i && r[i].score != r[i - 1].score) {
			groups++;
			total += run > 1000.0 ? run * 0.5 : run;
			run = 0;
		}
		run += r[i].weight;
	}
	return total + run + (double)groups;
}

int main(int argc, char **argv)
{
	int mode = argc > 1 && !strcmp(argv[1], "train");
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
	const char *key = argc > 4 ? argv[4] : "score";
	static const struct { const char *name; cmp_fn cmp; } keys[] = {
		{ "score", by_score }, { "name", by_name }, { "weight", by_weight },
	};
	cmp_fn cmp = NULL;
	struct rec *r, *tmp;
	double sum = 0;

	rng_state = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i].name))
			cmp = keys[i].cmp;
	r = malloc(n * sizeof(*r));
	tmp = malloc(n * sizeof(*r));
	if (!cmp || !r || !tmp || n == 0) {
		fprintf(stderr, "usage: recsort train|eval N SEED [score|name|weight]\n");
		return 64;
	}
	/* The comparator is only known at run time, as with qsort: -O2 cannot inline it. */
	for (int pass = 0; pass < 3; pass++) {
		fill(r, n, mode);
		merge_sort(r, n, sizeof(*r), cmp, tmp);
		for (size_t q = 0; q < n; q++)
			sum += (double)lower_bound(r, n, sizeof(*r), &r[rng() % n], cmp);
		if (cmp == by_score)
			sum += group(r, n);
	}
	printf("%.1f\n", sum);
	free(r);
	free(tmp);
	return 0;
}
