/* Its own compile unit: the link-time optimiser inlines work() into main's loop. */
int work(unsigned x);

int work(unsigned x)
{
	unsigned s = 0, i;

	for (i = 0; i < 64; i++)
		s += (x >> (i & 7)) ^ (i * 2654435761u);
	return (int)(s & 0xffff);
}
