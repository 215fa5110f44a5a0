static long cache[1024];

long lookup(long k)
{
	if (cache[k & 1023] == k)
		return k * 3;
	/* the slow path: once per key, then the cache answers */
	long h = k;
	for (int r = 0; r < 200; r++) {
		h = h * 6364136223846793005L + 1442695040888963407L;
		h ^= h >> 29;
	}
	h += cache[(k + 1) & 1023] + cache[(k + 7) & 1023];
	cache[k & 1023] = k;
	return h;
}

long tab_step(long i)
{
	return lookup(i & 1023) + lookup((i + 3) & 1023);
}
