#include <stdio.h>
#include <stdlib.h>

int work(unsigned x);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, i, t = 0;

	for (i = 0; i < n; i++)
		t += work((unsigned)i);
	printf("%ld\n", t);
	return 0;
}
