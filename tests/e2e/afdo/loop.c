/* t25xx fixture: a hot loop in a noinline function, a rarely-taken branch made hot at run time,
 * a small helper gcc inlines. Line numbers are asserted by the tests: keep them stable.
 * work: name on line 11, loop body on line 15 (+4), `return r` on line 16 (+5).
 * main: name on line 37, the rare test on line 43, the call of rare_fn on line 44. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long acc; static volatile unsigned long seven = 7; /* a real division */

__attribute__((noinline)) static unsigned long
work (unsigned long x)
{
  unsigned long r = 0;
  for (int i = 0; i < 64; i++)
    r += (x >> (i & 7)) ^ (unsigned long) i;
  return r;
}

static unsigned long
helper (unsigned long x)
{
  if (x % seven == 3)
    return work (x) * 3;
  return x + 1;
}

__attribute__((noinline)) unsigned long
rare_fn (unsigned long x)
{
  unsigned long s = 0;
  for (unsigned long k = 0; k < x % 13; k++)
    s += k * x;
  return s;
}

int
main (int argc, char **argv)
{
  unsigned long n = argc > 1 ? strtoul (argv[1], 0, 10) : 20000000UL;
  unsigned long m = argc > 2 ? strtoul (argv[2], 0, 10) : 1000UL;
  for (unsigned long i = 0; i < n; i++)
    {
      if (__builtin_expect (i % m == m - 1, 0))
        acc += rare_fn (i);
      else
        acc += helper (i);
    }
  printf ("%llu\n", acc);
  return 0;
}
