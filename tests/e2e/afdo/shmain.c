/* t25xx fixture: the executable that calls the shared library's hot_mix; it also has a hot loop
 * of its own (main: name on line 9, the loop body on line 16) so both DSOs have samples. */
#include <stdio.h>
#include <stdlib.h>

unsigned long hot_mix (const unsigned *v, size_t n, unsigned long seed);

int
main (int argc, char **argv)
{
  static unsigned v[4096];
  unsigned long n = argc > 1 ? strtoul (argv[1], 0, 10) : 20000UL, h = 0;
  for (unsigned long r = 0; r < n; r++)
    {
      for (size_t i = 0; i < 4096; i++)
        v[i] = (unsigned) ((i + r) * 2654435761u) ^ (unsigned) (v[i] >> 3);
      h = hot_mix (v, 4096, h + r);
    }
  printf ("%lu\n", h);
  return 0;
}
