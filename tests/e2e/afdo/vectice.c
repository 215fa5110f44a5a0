// SPDX-License-Identifier: MIT
/*
 * The loop shape gcc 12.2's vectoriser crashes on under -fauto-profile (t2531): a constant
 * trip count and a conditional add, if-converted and vectorised at -O2. Sampled profiles of
 * flex, phalanx and this file hit it (docs/convert.md, Known limits).
 */
#include <stdio.h>
#include <stdlib.h>

signed char b[128];
int iso[10];

__attribute__((noinline)) int score8(int sq, int r)
{
	int pen = 0, j;

	for (j = sq % 10 + 20; j < 99; j += 10) /* LOOP */
		if (b[j] == 66) /* IF */
			pen += -2 + iso[sq % 10] / 2; /* ARM */
	pen += iso[sq % 10] * r; /* EXIT */
	return pen;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 1000000;
	long i, sum = 0;

	for (i = 0; i < (long)sizeof(b); i++)
		b[i] = (signed char)(i * 7 % 131);
	for (i = 0; i < 10; i++)
		iso[i] = (int)i - 4;
	for (i = 0; i < calls; i++)
		sum += score8((int)i, (int)(i & 7));
	printf("%ld\n", sum);
	return 0;
}
