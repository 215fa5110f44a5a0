#include <stdio.h>

static long rare(long x)
{
	char buf[64];
	long h = x;

	for (int k = 0; k < 40; k++)
		h = h * 31 + (h >> 3) + k;
	snprintf(buf, sizeof(buf), "%ld", h);
	return h ^ buf[0] ^ buf[1];
}

long process(long x)
{
	long s = 0;

	for (int j = 0; j < 64; j++)
		s += (x ^ j) * (j | 1);
	if (x < 0)
		s ^= rare(x);
	return s;
}
