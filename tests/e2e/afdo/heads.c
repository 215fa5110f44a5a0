/* t2525 fixture: a small function called from a hot loop whose call line does slow work of its
 * own (divisions), so the line of mix's entry instruction gets far fewer samples than the call
 * line: an entry count taken from that line alone reads as "rarely entered".
 * mix: name on line 10; main: name on line 19, the call of mix on line 26 (+7).
 * Keep the line numbers stable. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long
mix (unsigned long x, unsigned long n)
{
  unsigned long r = x;
  for (unsigned long k = 0; k < n; k++)
    r = r * 31 + (k ^ (r >> 3));
  return r;
}

int
main (int argc, char **argv)
{
  unsigned long n = argc > 1 ? strtoul (argv[1], 0, 10) : 20000000UL;
  volatile unsigned long d1 = 1000003, d2 = 7919, d3 = 104729;
  unsigned long acc = 0;
  for (unsigned long i = 0; i < n; i++)
    {
      acc += mix ((i * 2654435761UL) % d1 / d2 + (acc % d3) / (i | 1) + i / d2, 2 + (i & 1));
    }
  printf ("%lu\n", acc);
  return 0;
}
