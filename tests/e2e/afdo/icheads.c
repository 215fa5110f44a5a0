/* t2525 fixture: one indirect call line reaches op_a three times as often as op_b, each call
 * doing the same work, so the stacks through that line split 3:1 and so should the heads. The
 * call line divides (slow), so its count is far above the callees' entry lines.
 * main: name on line 23, the indirect call on line 28 (+5). Keep the line numbers stable. */
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long (*op_fn)(unsigned long);

__attribute__((noinline)) unsigned long op_a(unsigned long x)
{
	for (int k = 0; k < 4; k++)
		x = x * 31 + (x >> 7);
	return x;
}
__attribute__((noinline)) unsigned long op_b(unsigned long x)
{
	for (int k = 0; k < 4; k++)
		x = x * 37 + (x >> 5);
	return x;
}
op_fn volatile ops[4] = { op_a, op_a, op_a, op_b };
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 4000000UL, acc = 1;
	volatile unsigned long d1 = 1000003, d2 = 7919, d3 = 104729;
	for (unsigned long i = 0; i < n; i++)
		acc = ops[i & 3]((acc % d1) / d2 + (acc % d3) / (i | 1) + i / d2);
	printf("%lu\n", acc);
	return 0;
}
