/* SPDX-License-Identifier: MIT */
/* Inlining two levels deep: main -> count_crossings -> crosses -> orient (t2585). Line numbers
 * matter to t2585: orient's return is line 15, crosses' first calls of it line 20. */
#include <stdio.h>
#include <stdlib.h>

struct pt {
	double x, y;
};

static int orient(const struct pt *a, const struct pt *b, const struct pt *c)
{
	double d = (a->y - b->y) * (c->x - b->x) - (c->y - b->y) * (a->x - b->x);

	return d > 0 ? 1 : d < 0 ? 2 : 3;
}

static int crosses(const struct pt *a, const struct pt *b, const struct pt *c, const struct pt *d)
{
	if (orient(a, b, c) == 3 || orient(a, b, d) == 3 ||
	    orient(c, d, a) == 3 || orient(c, d, b) == 3)
		return 0;
	return orient(a, b, c) != orient(a, b, d) && orient(c, d, a) != orient(c, d, b);
}

static long count_crossings(const struct pt *p, int n)
{
	long k = 0;
	int i, j;

	for (i = 0; i + 1 < n; i++)
		for (j = i + 2; j + 1 < n; j++)
			k += crosses(&p[i], &p[i + 1], &p[j], &p[j + 1]);
	return k;
}

int main(int argc, char **argv)
{
	int n = 400, reps = argc > 1 ? atoi(argv[1]) : 1, r, i;
	struct pt *p = malloc(n * sizeof(*p));
	unsigned s = 12345;
	long k = 0;

	if (!p)
		return 1;
	for (r = 0; r < reps; r++) {
		for (i = 0; i < n; i++) {
			s = s * 1103515245 + 12345;
			p[i].x = (s >> 8) % 1000;
			s = s * 1103515245 + 12345;
			p[i].y = (s >> 8) % 1000;
		}
		k += count_crossings(p, n);
	}
	printf("%ld\n", k);
	free(p);
	return 0;
}
