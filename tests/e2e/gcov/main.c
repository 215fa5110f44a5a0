/* The gcov route's test program (t2620): a hot loop, a branch training never takes, a
 * function whose rare slow path gcc splits off (partial inlining). */
#include <stdio.h>
#include <stdlib.h>

long process(long x);
long tab_step(long i);
long blend(long x);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, s = 0;

	for (long i = 0; i < n; i++) {
		s += process(i);
		s += tab_step(i);
		s += blend(i);
	}
	printf("%ld\n", s);
	return 0;
}
