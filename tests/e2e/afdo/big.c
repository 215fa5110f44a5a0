/* t25xx fixture: big() is too large for gcc -O2 to inline into main's loop by itself. The
 * profiled build has -DATTR='__attribute__((flatten))': there big is inlined into main and the
 * profile holds an inlined-instance record at main+5 that must make gcc inline it when it
 * compiles the plain source (-DATTR=). big: name on line 9; main: name on line 22, loop call 27. */
#include <stdio.h>
#include <stdlib.h>

unsigned long
big (unsigned long x)
{
  unsigned long r = x;
  r = r * 2654435761u + 1; r ^= r >> 13; r = r * 40503u + 7; r ^= r << 5;
  r = r * 2654435761u + 3; r ^= r >> 11; r = r * 40503u + 9; r ^= r << 7;
  r = r * 2654435761u + 5; r ^= r >> 17; r = r * 40503u + 1; r ^= r << 3;
  r = r * 2654435761u + 7; r ^= r >> 19; r = r * 40503u + 2; r ^= r << 9;
  if (r % 3 == 0)
    r += x * 17;
  return r;
}

ATTR int
main (int argc, char **argv)
{
  unsigned long n = argc > 1 ? strtoul (argv[1], 0, 10) : 1000000UL;
  unsigned long acc = 0;
  for (unsigned long i = 0; i < n; i++)
    acc += big (i);
  printf ("%lu\n", acc + big (n));
  return 0;
}
