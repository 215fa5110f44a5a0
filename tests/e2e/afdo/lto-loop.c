/* work() for t2580's entry-count case: it runs once per call down to the loop, whose trip
 * count (64-127) gcc cannot know; the loop's counter starts on a line of its own, so that
 * the entry block's lines are not the loop's. */
int work(unsigned x);

int work(unsigned x)
{
	unsigned s = x * 2654435761u;
	unsigned n = (x & 63) + 64;
	unsigned i = 0;

	while (i < n) {
		s += (s >> 3) ^ i;
		i++;
	}
	return (int)(s & 0xffff);
}
