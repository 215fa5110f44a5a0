/* t25xx fixture: a shared library with a hot loop (hot_mix: name on line 5, loop body lines 10-11). */
#include <stddef.h>

unsigned long
hot_mix (const unsigned *v, size_t n, unsigned long seed)
{
  unsigned long h = seed;
  for (size_t i = 0; i < n; i++)
    {
      h = (h ^ v[i]) * 0x100000001b3UL;
      h ^= h >> 29;
    }
  return h;
}
